import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The cursor signing key of a data directory: made once at random and kept in the directory,
 * so cursors survive a restart, and nobody without the folder can sign one.
 */
export function cursorKeyOf(dataDir: string): string {
  const file = join(dataDir, 'cursor-secret');
  try {
    writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}
