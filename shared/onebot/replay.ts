import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { reserving } from '../invocation';
import { countMisconfiguration } from '../health/emf';
import { ONEBOT_LIMITS } from '../limits';
import { causeOf, log } from '../log';
import { misconfiguration } from '../store/sdk-errors';
import { handleEvent } from './handle';
import { getBlob } from './store/blobs';
import type { Delivery } from './delivery';
import { keptDelivery, waitsForDatabase, type KeptDelivery } from './keep/kept';
import { hideForBackoff } from './keep/queue';
import { parseBody, parseEvent } from './verify/parse';

/*
 * Kept deliveries back through the event pipeline (handle.ts) once the database answers: from
 * the SQS queue in AWS (the onebot_queue function), from the spool locally (the local server's
 * drain, scripts/local/spool-drain.ts, which no Lambda bundle holds).
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
 * delivery is hidden for its backoff (keep/backoff.ts) before it is reported, so that
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
