import { mkdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { detached } from '../../shared/invocation';
import { ONEBOT_LIMITS } from '../../shared/limits';
import { causeOf, log } from '../../shared/log';
import { keptDelivery, waitsForDatabase } from '../../shared/onebot/keep/kept';
import { spoolDir, spooled } from '../../shared/onebot/keep/spool';
import { misconfiguration } from '../../shared/store/sdk-errors';

/*
 * The local server's drain of the OneBot spool (shared/onebot/keep/spool.ts): what the
 * onebot_queue function is to the SQS queue in AWS. It lives here, not beside that consumer, so
 * that no Lambda bundle holds its timer.
 */

let timer: NodeJS.Timeout | undefined;
let draining: Promise<number> | undefined;

/** Whether the last drain stopped on a misconfiguration, already logged: one line per episode, not one a second. */
let misconfigured = false;

async function drainOnce(): Promise<number> {
  // Loaded by the first drain, not with this module: npm start imports the local server before it
  // checks the models, which the receiver's modules declare as they load.
  const { storeKept } = await import('../../shared/onebot/replay');
  let stored = 0;
  for (const name of await spooled()) {
    const path = join(spoolDir(), name);
    try {
      await storeKept(keptDelivery.parse(JSON.parse(await readFile(path, 'utf8'))));
    } catch (error) {
      // Kept until an operator fixes the table or its grant, then stored like the rest.
      if (misconfiguration(error)) {
        if (!misconfigured) log.error('misconfigured', { spooled: (await spooled()).length, ...causeOf(error) });
        misconfigured = true;
        return stored;
      }
      if (waitsForDatabase(error)) return stored;
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
function drainSpool(): Promise<number> {
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
