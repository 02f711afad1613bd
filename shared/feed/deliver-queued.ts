import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ChangeMessageVisibilityBatchCommand } from '@aws-sdk/client-sqs';
import { feedQueueUrl } from '../config';
import { inTime } from '../invocation';
import { causeOf, log } from '../log';
import { changeSchema } from './change';
import { attemptUnlessOpen } from './breaker';
import { isWebhook, type AttemptOutcome } from './deliver';
import { noteDelivered } from './delivered';
import { writeDeadLetter } from './dead-letters';
import { groupOf } from './group';
import type { Delivery } from './queue';
import { sqsClient } from './queue-sqs';
import type { Subscription } from './subscriptions';
import { attemptNumber, forgetAttempts, noteFailedAttempt } from './tries';

/** Logged once per dead letter: the stack's metric filter counts these lines for its alarm (infra/feed.ts). */
export const DEAD_LETTER_LOG_CODE = 'feed_dead_letter';

export interface QueuedSettings {
  subscriptions: ReadonlyArray<Subscription>;
  /** Epoch ms; tests move it. */
  now?: () => number;
  /** Shortened by tests only. */
  timeoutMs?: number;
}

/**
 * functions/feed_delivery: a batch of the SQS FIFO queue (ReportBatchItemFailures). Each
 * message is one attempt of its delivery, or none while its subscription's breaker is open
 * (./breaker.ts: counted as a failed attempt). Delivered: it succeeds. Failed: it is hidden until the
 * schedule's next attempt (ChangeMessageVisibility, at most SQS's 12 h, above the schedule's
 * longest 10 h) and reported failed, which keeps its group behind it; the group's later messages
 * in the same batch are reported failed unattempted. After the last attempt: a dead
 * letter in the table, and it succeeds, letting the group go on.
 */
export async function deliverQueued(event: SQSEvent, settings: QueuedSettings): Promise<SQSBatchResponse> {
  const { now = Date.now } = settings;
  const groups = new Map<string, Array<{ record: SQSRecord; delivery: Delivery }>>();
  for (const record of event.Records) {
    const delivery = deliveryOf(record);
    const group = record.attributes.MessageGroupId ?? groupOf(delivery);
    groups.set(group, [...(groups.get(group) ?? []), { record, delivery }]);
  }
  const failed: SQSRecord[] = [];
  const hide: Array<{ record: SQSRecord; seconds: number }> = [];
  // Groups at once, so that a hung endpoint's 15 s are not paid once per message of the batch;
  // within a group, in order, and nothing after a failure.
  await Promise.all(
    [...groups.values()].map(async (messages) => {
      for (const [i, { record, delivery }] of messages.entries()) {
        try {
          const outcome = await attempt(delivery, record, settings, now);
          if (outcome.kind !== 'retry') continue;
          hide.push({ record, seconds: outcome.afterSeconds });
        } catch (error) {
          // The table failed, not the endpoint: the message comes back after the queue's visibility timeout.
          log.error('feed_delivery_failed', { subscription: delivery.subscription, change_id: delivery.change.change_id, ...causeOf(error) });
        }
        failed.push(...messages.slice(i).map((m) => m.record));
        return;
      }
    }),
  );
  await hideUntilDue(hide);
  return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
}

const deliveryOf = (record: SQSRecord): Delivery => {
  const { subscription, change } = JSON.parse(record.body) as Delivery;
  return { subscription, change: changeSchema.parse(change) };
};

async function attempt(delivery: Delivery, record: SQSRecord, settings: QueuedSettings, now: () => number): Promise<AttemptOutcome> {
  const number = await attemptNumber(delivery, Number(record.attributes.ApproximateReceiveCount));
  const subscription = settings.subscriptions.find((s) => s.name === delivery.subscription);
  // Removed from SUBSCRIPTIONS (or made a bus) since the change was queued: kept as a dead letter, never dropped unseen.
  const outcome: AttemptOutcome =
    subscription && isWebhook(subscription)
      ? await attemptUnlessOpen(delivery, subscription, { attempt: number, now, timeoutMs: settings.timeoutMs })
      : { kind: 'dead', failure: 'no such webhook subscription' };
  const at = new Date(now()).toISOString();
  if (outcome.kind === 'retry') {
    await noteFailedAttempt(delivery, number, now());
    return outcome;
  }
  if (outcome.kind === 'delivered') await noteDelivered(delivery, at);
  else {
    log.warn(DEAD_LETTER_LOG_CODE, { subscription: delivery.subscription, change_id: delivery.change.change_id, attempts: number, failure: outcome.failure });
    await writeDeadLetter({ delivery, attempts: number, failure: outcome.failure, at });
  }
  if (number > 1) await forgetAttempts(delivery);
  return outcome;
}

/** If this fails, a failed message comes back after the queue's visibility timeout instead: sooner than the schedule, never lost. */
async function hideUntilDue(hide: Array<{ record: SQSRecord; seconds: number }>): Promise<void> {
  const queueUrl = feedQueueUrl();
  for (let i = 0; i < hide.length && queueUrl; i += 10) {
    const entries = hide.slice(i, i + 10).map(({ record, seconds }, j) => ({ Id: String(j), ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
    try {
      const { Failed = [] } = await sqsClient().send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }), inTime());
      if (Failed.length > 0) log.error('feed_retry_delay_failed', { codes: Failed.map((f) => f.Code) });
    } catch (error) {
      log.error('feed_retry_delay_failed', { count: entries.length, ...causeOf(error) });
    }
  }
}
