import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDir } from '../../config';
import type { KeptDelivery } from './kept';

/**
 * The local stand-in for the AWS queue: one file per kept delivery under
 * `<DATA_DIR>/onebot-spool/`, written whole (temp file, flush, rename) before the sender is
 * answered, and stored by the local server's drain (scripts/local/spool-drain.ts), which retries
 * every spoolRetryMs until the database is back.
 */
export const spoolDir = (): string => join(dataDir(), 'onebot-spool');

/**
 * Started after each delivery spooled: the drain, which the local server gives here when it
 * starts, so that the receiver never imports it and no Lambda bundle holds its timer. A function
 * in AWS keeps deliveries in the queue, never here.
 */
let startDrain: (() => void) | undefined;

export function drainSpoolWith(start: () => void): void {
  startDrain = start;
}

export async function spoolDelivery(kept: KeptDelivery): Promise<void> {
  const dir = spoolDir();
  await mkdir(dir, { recursive: true });
  // Named by receive time, so the drain stores in arrival order.
  const name = `${Date.parse(kept.received_at).toString().padStart(15, '0')}-${randomUUID()}.json`;
  await writeFile(join(dir, `${name}.tmp`), JSON.stringify(kept), { flush: true });
  await rename(join(dir, `${name}.tmp`), join(dir, name));
  startDrain?.();
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
