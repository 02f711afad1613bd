import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

// A machine with Node.js and npm and nothing else: no chromium on the PATH. `apt-get` there is a
// stand-in that only notes it was called, and "installs" a chromium that is a shell script.
let bin: string;
let aptCalls: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'bare-path-'));
  aptCalls = join(bin, 'apt-get-calls');
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));
afterEach(() => {
  rmSync(aptCalls, { force: true });
  rmSync(join(bin, 'apt-get'), { force: true });
  rmSync(join(bin, 'chromium'), { force: true });
});

/** Puts the apt-get stand-in on the bare PATH. */
function withAptGet() {
  writeFileSync(
    join(bin, 'apt-get'),
    `#!/bin/sh\necho "$@" >> ${aptCalls}\nprintf '#!/bin/sh\\n' > ${join(bin, 'chromium')}\n/bin/chmod +x ${join(bin, 'chromium')}\n`,
  );
  chmodSync(join(bin, 'apt-get'), 0o755);
}

const run = (command: string, env: Record<string, string> = {}) =>
  spawnSync('/bin/sh', ['-c', command], { cwd: ROOT, encoding: 'utf8', env: { PATH: bin, HOME: tmpdir(), ...env } });
const asRoot = process.getuid?.() === 0 ? test : test.skip;

describe('`npm test` changes nothing on the machine (issue 30 finding 11)', () => {
  // npm runs pre- and post- scripts around `test` by itself: none of them, nor the jest
  // configuration, may install anything, even as root with apt-get at hand.
  test('with apt-get at hand and no Chromium, it installs nothing, says the browser test does not run, and leaves it out', () => {
    withAptGet();
    for (const step of [scripts.pretest, scripts.posttest]) if (step) run(step);
    const config = run(`node -e "console.log(JSON.stringify(require('./jest.config.js').projects.map((p) => p.displayName)))"`);
    expect(config.status).toBe(0);
    expect(existsSync(aptCalls)).toBe(false);
    expect(config.stderr).toMatch(/no Chromium found, so the e2e project .* does not run; `npm run browser` installs it/);
    expect(JSON.parse(config.stdout)).not.toContain('e2e');
  });

  test('a Chromium on the PATH is the one the e2e project drives', () => {
    withAptGet();
    run('apt-get install chromium');
    const config = run(`node -e "require('./jest.config.js'); console.log(process.env.CHROMIUM_PATH)"`);
    expect(config.stdout.trim()).toBe(join(bin, 'chromium'));
  });
});

describe('`npm run browser`, the optional step that installs Chromium', () => {
  asRoot('as root with apt-get, installs Debian chromium', () => {
    withAptGet();
    const browser = run(scripts.browser);
    expect(browser.status).toBe(0);
    expect(readFileSync(aptCalls, 'utf8')).toMatch(/^update\ninstall -y --no-install-recommends chromium\n$/);
    expect(browser.stdout).toContain(`chromium: ${join(bin, 'chromium')}`);
  });

  test('fails, saying why, where it cannot provide one', () => {
    const browser = run(scripts.browser);
    expect(browser.stderr).toMatch(/chromium is missing and this user cannot install it/);
    expect(browser.status).toBe(1);
  });

  test('names a CHROMIUM_PATH that does not exist', () => {
    const browser = run(scripts.browser, { CHROMIUM_PATH: join(bin, 'no-such-chromium') });
    expect(browser.stderr).toMatch(/CHROMIUM_PATH is .*no-such-chromium, which does not exist/);
    expect(browser.status).toBe(1);
  });
});
