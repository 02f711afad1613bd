import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const INSTALL = 'apt-get update && apt-get install -y --no-install-recommends chromium';

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  }
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

/**
 * Debian's chromium for playwright-core, installed with apt-get where it is missing and this
 * process may (root, apt-get present). Anything else is a clear failure, never a skipped test:
 * in CI a missing browser must not pass unnoticed.
 */
export function chromiumPath(): string {
  const found = findChromium();
  if (found) return found;
  const canInstall = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
  if (!canInstall) {
    throw new Error(`The docs end-to-end test needs Chromium, which is not installed, and this process cannot install it (it needs root and apt-get). Install it with: ${INSTALL}`);
  }
  console.log(`chromium is missing; installing it: ${INSTALL}`);
  const run = spawnSync('sh', ['-c', INSTALL], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  const installed = findChromium();
  if (run.status !== 0 || !installed) throw new Error(`Installing chromium failed (apt-get exit ${run.status}); run by hand: ${INSTALL}`);
  console.log(`chromium installed at ${installed}`);
  return installed;
}
