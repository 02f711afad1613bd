import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { useApi } from '../support/api';

/**
 * Every fenced code block of README.md and docs/api-documentation.md runs as written, or says why
 * not in a `<!-- not-run: reason -->` comment on the line before it. The one substitution: the
 * address the docs use, http://127.0.0.1:3000, becomes this test's server. That server is the one
 * the README describes: no API_TOKENS (loopback callers need no token, so no token is substituted)
 * and ONEBOT_SECRET as the README starts it. Shell blocks run in bash, each curl checked for exit
 * 0, a 2xx answer and a success envelope; TypeScript blocks run with tsx from a project that
 * installed this one's packed tarball and the client package's with npm, so `recordgate/client` and
 * `recordgate-client` resolve as they do for a user.
 */
const ROOT = path.resolve(__dirname, '../..');
const DOCS = ['README.md', 'docs/api-documentation.md'];
const DOC_URL = 'http://127.0.0.1:3000';
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

delete process.env.API_TOKENS;
const onebotSecret = /ONEBOT_SECRET=(\S+) npm start/.exec(readme)?.[1];
process.env.ONEBOT_SECRET = onebotSecret;

const api = useApi();
const run = promisify(execFile);

interface Block {
  doc: string;
  line: number;
  lang: string;
  code: string;
  notRun?: string;
}

function blocksOf(doc: string): Block[] {
  const lines = readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    const before = i > 0 ? /^<!-- not-run: (.+) -->$/.exec(lines[i - 1]) : null;
    blocks.push({ doc, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join('\n'), notRun: before?.[1] });
    i = end;
  }
  return blocks;
}

const blocks = DOCS.flatMap(blocksOf);
const title = (b: Block) => `${b.doc}:${b.line} (${b.lang})${b.notRun === undefined ? '' : `, not run: ${b.notRun}`}`;
const withServer = (code: string) => code.replaceAll(DOC_URL, api.url);

// Each curl of a block appends "exit status body-in-base64" to $REPORT and prints the body as curl would.
const CURL_REPORT = `set -euo pipefail
curl() {
  local out rc=0
  out=$(command curl -w '\\n%{http_code}' "$@") || rc=$?
  local body="\${out%$'\\n'*}"
  printf '%s' "$body"
  printf '%s %s %s\\n' "$rc" "\${out##*$'\\n'}" "$(printf '%s' "$body" | base64 | tr -d '\\n')" >> "$REPORT"
  return "$rc"
}
`;

interface CurlCall {
  exit: number;
  status: number;
  body: string;
}

async function runShell(code: string, dir: string): Promise<CurlCall[]> {
  const report = path.join(dir, 'curl-report');
  writeFileSync(report, '');
  await run('bash', ['-c', `${CURL_REPORT}${withServer(code)}`], { cwd: dir, env: { ...process.env, REPORT: report } });
  return readFileSync(report, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [exit, status, body = ''] = line.split(' ');
      return { exit: Number(exit), status: Number(status), body: Buffer.from(body, 'base64').toString('utf8') };
    });
}

/**
 * A project with this one installed as a user installs it: `npm pack` (what the registry would
 * hold: the files list, no tests), then `npm install` of the tarball into an empty project. Its
 * dependencies come from npm's cache (--prefer-offline), so the install needs no network once
 * this repository's own install has filled the cache.
 */
async function userProject(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'readme-snippet-'));
  const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  const [{ filename }] = JSON.parse(stdout);
  // The client package as its own tarball (built by the root install; --ignore-scripts packs that build).
  const client = await npm(['pack', '--workspace', 'client', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  const [{ filename: clientFile }] = JSON.parse(client.stdout.slice(client.stdout.indexOf('[')));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'readme-user', private: true }));
  await npm(['install', path.join(dir, filename), path.join(dir, clientFile), '--no-audit', '--no-fund', '--prefer-offline'], dir);
  return dir;
}

let dir: string;
beforeAll(async () => {
  dir = await userProject();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the README starts the server with the OneBot secret its signed example uses, and every block is found', () => {
  expect(onebotSecret).toBeDefined();
  expect(blocks.filter((b) => b.lang === 'ts')).toHaveLength(3);
  expect(blocks.some((b) => b.code.includes('openssl dgst'))).toBe(true);
});

// In document order: the README's blocks build on each other's records, as a reader's calls would.
test.each(blocks.map((b) => [title(b), b] as const))(
  '%s',
  async (_title, block) => {
    if (block.notRun !== undefined) {
      // Marked on purpose, with a reason; nothing else is left out.
      expect(block.notRun.trim().length).toBeGreaterThan(0);
      return;
    }
    if (block.lang === 'sh' || block.lang === 'bash') {
      const calls = await runShell(block.code, dir);
      expect(calls.length).toBe((block.code.match(/\bcurl -s\b/g) ?? []).length);
      for (const call of calls) {
        expect({ exit: call.exit, status: call.status }).toEqual({ exit: 0, status: expect.any(Number) });
        expect([call.status >= 200 && call.status < 300, call.body]).toEqual([true, call.body]);
        const answer = JSON.parse(call.body);
        // The record API answers in an envelope; the OneBot receiver answers a quick operation ({} for none).
        if ('status' in answer) expect(answer.status).toBe('success');
      }
      return;
    }
    if (block.lang === 'ts') {
      const file = path.join(dir, `snippet-${block.line}.ts`);
      writeFileSync(file, withServer(block.code));
      const { stderr } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), [file], { cwd: dir });
      expect(stderr).toBe('');
      return;
    }
    throw new Error(`${title(block)}: no way to run a ${block.lang || 'plain'} block; mark it <!-- not-run: reason --> if it is not a command`);
  },
  60_000,
);

test('the client snippets ran from the installed tarballs, copies without tests, and stored what they created', async () => {
  const installed = path.join(dir, 'node_modules', 'recordgate');
  expect(lstatSync(installed).isSymbolicLink()).toBe(false);
  expect(existsSync(path.join(installed, 'shared/client/index.ts'))).toBe(true);
  expect(existsSync(path.join(installed, 'test'))).toBe(false);
  const client = path.join(dir, 'node_modules', 'recordgate-client');
  expect(lstatSync(client).isSymbolicLink()).toBe(false);
  expect(existsSync(path.join(client, 'dist/esm/index.js'))).toBe(true);
  expect(existsSync(path.join(client, 'src'))).toBe(false);
  const stored = await api.post('/api/db/reaction/count', { filters: { content: 'hooray', user_id: 1669571 } });
  expect(stored.body.data.count).toBeGreaterThanOrEqual(1);
});

test('the signed OneBot example was verified with the secret, not let through: unsigned, it is refused', async () => {
  const stored = await api.post('/api/db/onebot_event/count', {});
  expect(stored.body.data.count).toBeGreaterThanOrEqual(1);
  // Issue 30, finding 16b: a fixed `time` goes stale, and a signed event over 5 minutes old is never answered.
  const example = await api.post('/api/db/onebot_event/list', { filters: { self_id: 10001, post_type: 'message' } });
  expect(example.body.data.items.length).toBeGreaterThanOrEqual(1);
  for (const event of example.body.data.items) {
    expect(Date.parse(event.received_at) / 1000 - Number(event.time)).toBeLessThan(300);
  }
  const unsigned = await api.post('/onebot/v11/', '{"time":1767225600,"self_id":10001,"post_type":"meta_event"}', { 'x-self-id': '10001' });
  expect(unsigned.status).toBe(401);
});

test("the TypeScript blocks type-check as a user's code would, with this repository's compiler options", () => {
  const snippets = blocks
    .filter((b) => b.lang === 'ts' && b.notRun === undefined)
    .map((b) => {
      const file = path.join(dir, `typed-${b.line}.ts`);
      writeFileSync(file, b.code);
      return file;
    });
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram(snippets, { ...options, types: ['node'] });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(problems).toEqual([]);
}, 60_000);
