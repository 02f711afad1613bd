// The Chromium that the docs end-to-end test (test/e2e) drives through playwright-core. Plain
// CommonJS because jest.config.js reads it to decide whether the e2e project runs (it only
// finds, never installs: `npm test` changes nothing on the machine); `npm run browser` runs it
// alone to install the browser, as .ci/run does before `npm test`.
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');

const INSTALL = 'apt-get update && apt-get install -y --no-install-recommends chromium';

/** CHROMIUM_PATH when set, else Debian's or Ubuntu's chromium on the PATH; undefined when absent. */
function findChromium() {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : undefined;
  for (const name of ['chromium', 'chromium-browser']) {
    const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  }
  return undefined;
}

/** Finds Chromium or installs Debian's with apt-get (root only); exits non-zero, saying why, when it can do neither. */
function ensureChromium() {
  const fail = (message) => {
    console.error(message);
    process.exit(1);
  };
  const found = findChromium();
  if (found) return console.log(`chromium: ${found}`);
  if (process.env.CHROMIUM_PATH) return fail(`CHROMIUM_PATH is ${process.env.CHROMIUM_PATH}, which does not exist`);
  if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0) {
    return fail(`chromium is missing and this user cannot install it (root and apt-get needed). Install it with: ${INSTALL}, or set CHROMIUM_PATH`);
  }
  console.log(`chromium is missing; installing it: ${INSTALL}`);
  const run = spawnSync('sh', ['-c', INSTALL], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  const installed = findChromium();
  if (run.status !== 0 || !installed) return fail(`installing chromium failed (apt-get exit ${run.status}); run by hand: ${INSTALL}`);
  console.log(`chromium: ${installed}`);
}

module.exports = { findChromium };

if (require.main === module) ensureChromium();
