import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDir } from '../../config';
import type { KeptDelivery } from './kept';

/**
 * The local stand-in for the AWS queue: one file per kept delivery under
 * `<DATA_DIR>/onebot-spool/`, written whole (temp file, flush, rename) before the sender is
 * answered, and stored by the drain of shared/onebot/replay.ts, which retries every spoolRetryMs until the
 * database is back.
 */
export const spoolDir = (): string => join(dataDir(), 'onebot-spool');

export async function spoolDelivery(kept: KeptDelivery): Promise<void> {
  const dir = spoolDir();
  await mkdir(dir, { recursive: true });
  // Named by receive time, so the drain stores in arrival order.
  const name = `${Date.parse(kept.received_at).toString().padStart(15, '0')}-${randomUUID()}.json`;
  await writeFile(join(dir, `${name}.tmp`), JSON.stringify(kept), { flush: true });
  await rename(join(dir, `${name}.tmp`), join(dir, name));
}

/** Kept deliveries not yet stored, oldest first. */
export async function spooled(): Promise<string[]> {
  try {
    return (await readdir(spoolDir())).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
