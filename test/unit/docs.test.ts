import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { AWS_LIMITS, FUNCTION_SETTINGS, LIMITS, ONEBOT_LIMITS } from '../../shared/limits';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const n = (value: number) => value.toLocaleString('en-US');
const DOCS = readdirSync(path.join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
// Written by npm run bench, not by hand.
const GENERATED = ['docs/benchmarks.md'];

describe('the README is a front door', () => {
  // What it says in passing, a document says in full: no longer sentence of it is one a document
  // repeats word for word (a README copied from the docs grows and drifts from them).
  test('that repeats no document', () => {
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const docs = flat(DOCS.map(read).join('\n'));
    const sentences = flat(read('README.md'))
      .split(/(?<=[.!?:])\s+/)
      .filter((sentence) => sentence.length > 100);
    expect(sentences.length).toBeGreaterThan(0);
    expect(sentences.filter((sentence) => docs.includes(sentence))).toEqual([]);
  });

  // Issue 30: the client example saved where the README says made the next `npm test` fail at `biome ci`.
  test('whose client example, saved where it says, is a file biome leaves alone', () => {
    const saved = read('README.md').match(/Saved as `([^`]+)` in this folder/)![1];
    const biome = JSON.parse(
      read('biome.jsonc')
        .split('\n')
        .filter((line) => !line.trim().startsWith('//'))
        .join('\n'),
    );
    expect(biome.files.includes).toContain(`!${saved}`);
  });

  /** The commands of the README's set-up block, one per `&&` or line, comments left out. */
  const readmeCommands = () =>
    read('README.md')
      .match(/```sh\n([\s\S]*?)```/)![1]
      .split('\n')
      .flatMap((line) => line.replace(/#.*/, '').split('&&'))
      .flatMap((command) => command.trim() || []);

  test('with its commands, Chromium an optional step of its own, and a link to every document', () => {
    expect(readmeCommands()).toEqual(['npm install', 'npm start', 'npm run browser', 'npm test']);
    for (const doc of DOCS) expect(read('README.md')).toContain(`](${doc})`);
  });

  // `npm start` serves until stopped: the one command CI leaves out.
  test('whose commands are what CI runs, in order, and nothing else', () => {
    const commands = read('.ci/run')
      .split('\n')
      .filter((line) => /^npm /.test(line))
      .map((line) => line.replace(/ --\S+/g, ''));
    expect(commands).toEqual(readmeCommands().filter((command) => command !== 'npm start'));
  });
});

test.each(DOCS.filter((d) => !GENERATED.includes(d) && !['docs/reliability.md'].includes(d)))(
  '%s opens with a table of contents whose entries exist',
  (doc) => {
    const text = read(doc);
    expect(text).toMatch(/^# .+\n[\s\S]*?\n## Contents\n- \[/);
    const anchors = [...text.matchAll(/^- \[[^\]]+\]\(#([^)]+)\)$/gm)].map((m) => m[1]);
    const headings = [...text.matchAll(/^## (.+)$/gm)].map((m) =>
      m[1]
        .toLowerCase()
        .replace(/[`()/,.:]/g, '')
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-'),
    );
    expect(anchors.length).toBeGreaterThan(0);
    for (const anchor of anchors) expect(headings).toContain(anchor);
  },
);

test.each(['README.md', ...DOCS])('every relative link in %s points at a file that exists', (doc) => {
  const links = [...read(doc).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
  for (const link of links) expect({ link, exists: existsSync(path.resolve(path.dirname(path.join(ROOT, doc)), link)) }).toEqual({ link, exists: true });
});

describe('the limits table says what shared/limits.ts enforces', () => {
  const rows = new Map(
    read('docs/security.md')
      .split('\n')
      .filter((l) => l.startsWith('| '))
      .map((l) => {
        const [label, value] = l
          .split('|')
          .slice(1)
          .map((c) => c.trim());
        return [label, value] as const;
      }),
  );
  test.each([
    ['request body', `${n(LIMITS.maxBodyBytes)} bytes`],
    ['nesting of arrays/objects in a body', `${LIMITS.maxJsonDepth} levels`],
    ['OneBot event', `nesting ${ONEBOT_LIMITS.maxEventDepth} levels`],
    ['records in one `create`', String(LIMITS.maxCreateBatch)],
    ['record id', `1-${LIMITS.maxIdLength} characters`],
    ['filter nesting', `${LIMITS.maxFilterDepth} levels`],
    ['compiled filter', `${n(LIMITS.maxFilterExpressionLength)} characters`],
    ['`details` in one error answer', `the first ${LIMITS.maxErrorDetails}`],
    ['conditions in one filter', String(LIMITS.maxFilterConditions)],
    ['values in one `$in`/`$nin`', String(LIMITS.maxInValues)],
    ['string operand in a filter', `${n(LIMITS.maxFilterStringLength)} characters`],
    ['`list` page', `default ${LIMITS.defaultPageSize}, at most ${n(LIMITS.maxPageSize)}`],
    ['records read per `list` page', n(LIMITS.maxScannedPerRequest)],
    ['`max_affected` of update/delete', `default ${n(LIMITS.maxAffected)}, at most ${n(LIMITS.maxAffected)}`],
    ['DynamoDB retries', `${LIMITS.dynamoAttempts} attempts`],
    ['function time', `${FUNCTION_SETTINGS.timeoutSeconds} s`],
    ['HTTP API payload', `${AWS_LIMITS.gatewayPayloadBytes / 1024 / 1024} MB, and the event within Lambda's ${AWS_LIMITS.lambdaPayloadBytes / 1024 / 1024} MB`],
  ])('%s: %s', (label, value) => {
    expect(rows.get(label)).toContain(value);
  });

  test('the bulk reserve before the deadline', () => {
    expect(read('docs/security.md')).toContain(`update/delete stop ${LIMITS.bulkStopBeforeDeadlineMs / 1000} s before it`);
  });
});

// Issue 36: the page of gaps states the limits it sends readers around; each is shared/limits.ts's.
test.each([
  [`at most ${LIMITS.maxIndexedFields} fields`],
  [`## More than ${LIMITS.maxIndexedFields} indexed fields`],
  [`at most ${n(LIMITS.maxScannedPerRequest)} records per page`],
  [`up to ${LIMITS.maxInValues} values per \`$in\``],
  [`at most ${n(LIMITS.maxAffected)} records (\`max_affected\`)`],
  [`## Bulk writes over ${n(LIMITS.maxAffected)} records`],
  [`One \`create\` takes up to ${LIMITS.maxCreateBatch} records, one transaction ${AWS_LIMITS.transactionActions}`],
  [`(up to ${AWS_LIMITS.transactionActions} operations`],
  [`at most ${AWS_LIMITS.dynamoItemBytes / 1024} KB each`],
  [`at most ${n(LIMITS.maxBodyBytes)} bytes`],
])('docs/limits-and-alternatives.md says "%s", as shared/limits.ts has it', (phrase) => {
  expect(read('docs/limits-and-alternatives.md').replace(/\s+/g, ' ')).toContain(phrase);
});

// Issue 31: a reader follows a request down the layers and never has to go back to a file left behind.
test.each(['A list request, each file once', 'A OneBot event, each file once'])('docs/architecture.md walks "%s", naming each file once', (title) => {
  const text = read('docs/architecture.md');
  const walk = new RegExp(`### ${title}\\n([\\s\\S]*?)\\n##`).exec(text)![1];
  const steps = walk.split('\n').filter((line) => /^\d+\. /.test(line));
  expect(steps.length).toBeGreaterThan(5);
  // Every file as the walk writes it, full path or beside the one before; each must be a new one.
  const named = steps.flatMap((step) => [...step.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]));
  const repeated = named.filter((file, i) => named.indexOf(file) !== i);
  expect(repeated).toEqual([]);
  for (const file of named.filter((f) => f.includes('/') && /^(shared|functions|infra|scripts)\//.test(f)))
    expect(existsSync(path.join(ROOT, file))).toBe(true);
});

test('docs/architecture.md draws one request in at most 12 lines, through files that exist', () => {
  const text = read('docs/architecture.md');
  const flow = /## One request, through the files\n\n```\n([\s\S]*?)```/.exec(text)![1].trimEnd().split('\n');
  expect(flow.length).toBeLessThanOrEqual(12);
  const files = [...flow.join('\n').matchAll(/\b((?:shared|functions|infra)\/[\w./<>-]+?\.ts)\b/g)].map((m) => m[1]).filter((f) => !f.includes('<'));
  expect(files.length).toBeGreaterThan(3);
  for (const file of files) expect(existsSync(path.join(ROOT, file))).toBe(true);
});
