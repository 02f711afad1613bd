import { createHash } from 'node:crypto';
import { readFile, rename, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { detached, reserving } from '../invocation';
import { countMisconfiguration } from '../health/emf';
import { ONEBOT_LIMITS } from '../limits';
import { causeOf, log } from '../log';
import { misconfiguration } from '../store/sdk-errors';
import { handleEvent } from './handle';
import { getBlob } from './keeping/blobs';
import { keptDelivery, waitsForDatabase, type Delivery, type KeptDelivery } from './keeping/delivery';
import { hideForBackoff } from './keeping/queue';
import { spoolDir, spooled } from './keeping/spool';
import { parseBody, parseEvent } from './receiving/events';

/*
 * Kept deliveries back through the event pipeline (handle.ts) once the database answers: from
 * the SQS queue in AWS (the onebot_queue function), from the spool locally (a drain timer).
 */

/** Stores a kept delivery through the same identity rules as a live one; its sender is long gone, so nothing is answered. */
export async function storeKept(kept: KeptDelivery): Promise<void> {
  const rawBody = kept.body_ref ? await getBlob(kept.body_ref) : Buffer.from(kept.body ?? '', 'base64');
  const id = kept.delivery_id ?? createHash('sha256').update(kept.received_at).update(rawBody).digest('hex');
  const delivery: Delivery = { id, rawBody, headers: kept.headers, receivedAt: kept.received_at, signed: kept.signed ?? false, late: kept.late ?? false };
  await handleEvent(delivery, parseEvent(parseBody(rawBody)), false);
}

/**
 * Stores each queued delivery; a failed one is reported back alone (partial batch response).
 * While the table is unreachable or misconfigured, the rest of the batch is not tried, and each
 * delivery is hidden for its backoff (keeping/backoff.ts) before it is reported, so that
 * its receives last the queue's retention instead of being spent in minutes. Any other failure
 * is retried after the queue's visibility timeout and dead-lettered after maxReceiveCount.
 */
export async function storeQueued(event: SQSEvent): Promise<SQSBatchResponse> {
  const failed: SQSRecord[] = [];
  const waiting: SQSRecord[] = [];
  for (const record of event.Records) {
    if (waiting.length > 0) {
      waiting.push(record);
      continue;
    }
    try {
      // Stops early enough to hide the waiting deliveries before the invocation's cutoff.
      await reserving(ONEBOT_LIMITS.keepReserveMs, () => storeKept(keptDelivery.parse(JSON.parse(record.body))));
    } catch (error) {
      log.error('queued_event_failed', { messageId: record.messageId, ...causeOf(error) });
      if (misconfiguration(error)) countMisconfiguration();
      (waitsForDatabase(error) ? waiting : failed).push(record);
    }
  }
  if (waiting.length > 0) await hideForBackoff(waiting);
  return { batchItemFailures: [...failed, ...waiting].map((record) => ({ itemIdentifier: record.messageId })) };
}

let timer: NodeJS.Timeout | undefined;
let draining: Promise<number> | undefined;

/** Whether the last drain stopped on a misconfiguration, already logged: one line per episode, not one a second. */
let misconfigured = false;

async function drainOnce(): Promise<number> {
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
