import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { detached } from '../deadline';
import { classify } from '../http/respond';
import { ONEBOT_LIMITS } from '../limits';
import { causeOf, log } from '../log';
import { dataDir } from './blobs';
import { keptDelivery, storeKept, type KeptDelivery } from './kept';

/**
 * The local stand-in for the AWS queue: one file per kept delivery under
 * `<DATA_DIR>/onebot-spool/`, written whole (temp file, flush, rename) before the sender is
 * answered, and stored by a drain that retries every spoolRetryMs until the database is back.
 */
const spoolDir = (): string => join(dataDir(), 'onebot-spool');

let timer: NodeJS.Timeout | undefined;
let draining: Promise<number> | undefined;

export async function spoolDelivery(kept: KeptDelivery): Promise<void> {
  const dir = spoolDir();
  await mkdir(dir, { recursive: true });
  // Named by receive time, so the drain stores in arrival order.
  const name = `${Date.parse(kept.received_at).toString().padStart(15, '0')}-${randomUUID()}.json`;
  await writeFile(join(dir, `${name}.tmp`), JSON.stringify(kept), { flush: true });
  await rename(join(dir, `${name}.tmp`), join(dir, name));
  scheduleDrain();
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

/** Whether the last drain stopped on a misconfiguration, already logged: one line per episode, not one a second. */
let misconfigured = false;

async function drainOnce(): Promise<number> {
  let stored = 0;
  for (const name of await spooled()) {
    const path = join(spoolDir(), name);
    try {
      await storeKept(keptDelivery.parse(JSON.parse(await readFile(path, 'utf8'))));
    } catch (error) {
      const { code } = classify(error);
      if (code === 'database_unavailable') return stored;
      // Kept until an operator fixes the table or its grant, then stored like the rest.
      if (code === 'misconfigured') {
        if (!misconfigured) log.error('misconfigured', { spooled: (await spooled()).length, ...causeOf(error) });
        misconfigured = true;
        return stored;
      }
      // Not a database outage: retrying cannot help. Set aside for a person, never dropped.
      log.error('spooled_event_failed', { file: name, ...causeOf(error) });
      await mkdir(join(spoolDir(), 'failed'), { recursive: true });
      await rename(path, join(spoolDir(), 'failed', name));
      continue;
    }
    await unlink(path);
    misconfigured = false;
    stored++;
  }
  return stored;
}

/** Stores what the spool holds (one drain at a time); returns how many were stored. */
export function drainSpool(): Promise<number> {
  draining ??= drainOnce().finally(() => {
    draining = undefined;
  });
  return draining;
}

/** Drains soon, and again every spoolRetryMs while anything is left. */
export function scheduleDrain(): void {
  if (timer) return;
  // Not bound to the cutoff of the request that kept a delivery: the drain is the server's own work.
  timer = detached(() =>
    setTimeout(async () => {
      try {
        await drainSpool();
      } catch (error) {
        log.error('spool_drain_failed', { message: causeOf(error).message });
      }
      timer = undefined;
      if ((await spooled().catch(() => [])).length > 0) scheduleDrain();
    }, ONEBOT_LIMITS.spoolRetryMs),
  );
  // The spool is on disk: a process that stops is drained by the next one.
  timer.unref();
}
