import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { buildOpenApiDocument } from '../../../shared/openapi/document';

// The deployment's models and one with every rule, which the document marks (docs/security.md).
jest.mock('../../../shared/models/every-model', () => {
  const actual = jest.requireActual('../../../shared/models/every-model');
  const { ruledModel } = jest.requireActual('../../support/models');
  return { allModels: () => [...actual.allModels(), ruledModel()] };
});

const ROOT = path.resolve(__dirname, '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'redocly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Lint {
  status: number | null;
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string }>;
  stderr: string;
}

/**
 * `redocly lint` with the project's redocly.yaml, in a child process (the CLI is an ESM program).
 * It runs offline: telemetry off (here and in redocly.yaml), no update check, no remote $ref.
 * A CLI start per lint (2 s, 5 s on a loaded machine): the build project runs it.
 */
function lint(document: unknown): Lint {
  const file = path.join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(document));
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
      'lint',
      file,
      '--config',
      path.join(ROOT, 'redocly.yaml'),
      '--lint-config',
      'error',
      '--format',
      'json',
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  );
  if (!run.stdout) throw new Error(`redocly lint printed nothing: ${run.stderr}`);
  return { status: run.status, ...JSON.parse(run.stdout), stderr: run.stderr };
}

const doc = buildOpenApiDocument();

test("the generated document passes Redocly's recommended rules, as redocly.yaml adjusts them, with no warning", () => {
  const result = lint(doc);
  expect(result.problems).toEqual([]);
  expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  expect(result.status).toBe(0);
  // A misspelt or unknown rule in redocly.yaml is a config warning, not a problem of the document.
  expect(result.stderr).not.toMatch(/Your config has|Unused rules/);
});

test('a path ending in "/" is still an error, except the OneBot receiver\'s', () => {
  const models = doc.paths['/api/db/models'];
  const result = lint({ ...doc, paths: { ...doc.paths, '/api/db/models/': models } });
  expect(result.status).not.toBe(0);
  expect(result.problems.map((p) => p.ruleId)).toContain('rule/no-path-trailing-slash-but-onebot');
});
