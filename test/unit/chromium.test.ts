import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

// A machine with Node.js and npm and nothing else: no chromium, no apt-get on the PATH.
let bin: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'bare-path-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const run = (command: string, env: Record<string, string> = {}) =>
  spawnSync('/bin/sh', ['-c', command], { cwd: ROOT, encoding: 'utf8', env: { PATH: bin, HOME: tmpdir(), ...env } });

describe('the set-up npm runs before `npm test` (pretest)', () => {
  test('without Chromium and no way to install it, it says so and lets the tests run', () => {
    const setUp = run(scripts.pretest);
    expect(setUp.stderr).toMatch(/chromium is missing .*npm test goes on without the browser test of \/docs/);
    expect(setUp.status).toBe(0);
  });

  test('a CHROMIUM_PATH that does not exist is named, and the tests still run', () => {
    const setUp = run(scripts.pretest, { CHROMIUM_PATH: join(bin, 'no-such-chromium') });
    expect(setUp.stderr).toMatch(/CHROMIUM_PATH is .*no-such-chromium, which does not exist/);
    expect(setUp.status).toBe(0);
  });

  test('`npm run browser`, asked for the browser alone, fails where it cannot provide one', () => {
    const browser = run(scripts.browser);
    expect(browser.stderr).toMatch(/chromium is missing and this user cannot install it/);
    expect(browser.status).toBe(1);
  });
});
