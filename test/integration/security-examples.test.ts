import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { defineModel, type Model } from '../../shared/models/define';
import * as zm from '../../shared/zod';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';

/**
 * docs/security.md's worked examples, run as written: each example's model is its defineModel
 * block, its API_TOKENS its start line, and every `curl` line is sent as is, its answer checked
 * against the `# <status> <part of data>` line under it. The models are the doc's, so this file
 * runs on the local server only (a model a test adds never reaches the bundles).
 */
const DOC = readFileSync(path.resolve(__dirname, '../../docs/security.md'), 'utf8');

interface Step {
  path: string;
  token: string;
  body: unknown;
  status: number;
  data: unknown;
}

interface Example {
  title: string;
  model: Model;
  tokens: string;
  steps: Step[];
}

const blocksOf = (section: string, lang: string) => [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);

/** The model of a defineModel block, built from its text (it is plain JavaScript once its imports and export are gone). */
function modelOf(block: string): Model {
  const body = block.replace(/^import .*\n/gm, '').replace(/^export const \w+ = /m, 'return ');
  return new Function('defineModel', 'zm', body)(defineModel, zm) as Model;
}

function exampleOf(section: string): Example {
  const title = section.split('\n')[0];
  const [modelBlock] = blocksOf(section, 'ts');
  const shell = blocksOf(section, 'sh');
  const tokens = /API_TOKENS='([^']*)'/.exec(shell.join('\n'))![1];
  const lines = shell.flatMap((b) => b.split('\n'));
  const steps: Step[] = [];
  lines.forEach((line, i) => {
    const sent = /^curl -s -X POST \$B\/(\S+) -H 'authorization: Bearer (\S+)' -d '(.*)'$/.exec(line);
    if (!sent) return;
    const seen = /^# (\d{3}) (.*)$/.exec(lines[i + 1] ?? '');
    if (!seen) throw new Error(`${title}: no answer line under ${line}`);
    steps.push({ path: `/api/db/${sent[1]}`, token: sent[2], body: JSON.parse(sent[3]), status: Number(seen[1]), data: JSON.parse(seen[2]) });
  });
  return { title, model: modelOf(modelBlock), tokens, steps };
}

const EXAMPLES = DOC.split(/^## /m)
  .filter((section) => section.startsWith('Worked example'))
  .map(exampleOf);

jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/catalog-with').catalogWith([], () => EXAMPLES.map((e) => e.model)));

const api = useApi();
beforeAll(async () => {
  for (const { model } of EXAMPLES) await recordLayout(model);
});
afterAll(() => {
  delete process.env.API_TOKENS;
});

test('the doc holds both worked examples, each with its requests', () => {
  expect(EXAMPLES.map((e) => [e.title, e.model.name])).toEqual([
    ['Worked example: a bookmarks app', 'bookmark'],
    ['Worked example: a two-tenant app', 'invoice'],
  ]);
  for (const { steps } of EXAMPLES) expect(steps.length).toBeGreaterThanOrEqual(8);
});

describe.each(EXAMPLES.map((e) => [e.title, e] as const))('%s', (_title, example) => {
  test('each caller sees what the doc says it sees', async () => {
    process.env.API_TOKENS = example.tokens;
    for (const step of example.steps) {
      const r = await api.post(step.path, step.body, { authorization: `Bearer ${step.token}` });
      expect({ sent: step, status: r.status, data: r.body?.data }).toMatchObject({ sent: step, status: step.status, data: step.data });
    }
  });
});
