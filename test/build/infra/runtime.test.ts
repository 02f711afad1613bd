import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESBUILD_OPTIONS, LAMBDA_NODE_MAJOR } from '../../../infra/esbuild-options';

const ROOT = join(__dirname, '..', '..', '..');
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

// The tests, `npm start` and the synth run on the Node.js major Lambda runs (docs/testing.md): npm
// puts the `node` devDependency's binary first on the PATH of every npm script and of npx.
describe("the Node.js major is Lambda's", () => {
  test('the tests run on it', () => {
    expect(major(process.versions.node)).toBe(LAMBDA_NODE_MAJOR);
  });

  test('so does a child process that asks the PATH for `node` (npm scripts, tsx, cdk, the artifact sandboxes)', () => {
    const child = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(major(child.stdout.trim())).toBe(LAMBDA_NODE_MAJOR);
  });

  test('npm install brings that major as the `node` devDependency, and esbuild builds for it', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(major(devDependencies.node)).toBe(LAMBDA_NODE_MAJOR);
    expect(ESBUILD_OPTIONS.target).toBe(`node${LAMBDA_NODE_MAJOR}`);
  });
});
