import { randomUUID } from 'node:crypto';
import type { SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { onebotQueueUrl, settings } from '../../config';
import { BOUNDED_HTTP, inTime } from '../../invocation';
import { loadOnce } from '../../load-once';
import { causeOf, log } from '../../log';
import { backoffSeconds } from './backoff';
import { BLOB_PREFIXES, putBlob } from '../store/blobs';
import type { Delivery } from '../delivery';
import { toKept } from './kept';

/**
 * The AWS side of keeping deliveries: the SQS queue `ONEBOT_QUEUE_URL`, consumed by the
 * onebot_queue function (shared/onebot/replay.ts). A body whose base64 would not fit a message comfortably goes to
 * the bucket first and the message points at it.
 */
export const MAX_INLINE_BODY_BYTES = 192 * 1024;

let sqs: SQSClient | undefined;

export async function queueMessage(queueUrl: string, delivery: Delivery): Promise<SendMessageCommandInput> {
  const big = delivery.rawBody.length > MAX_INLINE_BODY_BYTES;
  const ref = big ? await putBlob(`${BLOB_PREFIXES.deliveries}${randomUUID()}.json`, delivery.rawBody) : undefined;
  return { QueueUrl: queueUrl, MessageBody: JSON.stringify(toKept(delivery, ref)) };
}

// The receiver sends to the queue only while the database is unreachable, so the client is
// loaded on first use, not at every cold start (issue 24; a chunk of its own, infra/esbuild-options.ts).
const sqsApi = loadOnce(() => import('@aws-sdk/client-sqs'));
async function sqsClient(): Promise<SQSClient> {
  const { SQSClient } = await sqsApi();
  sqs ??= new SQSClient({ region: settings().AWS_REGION, requestHandler: BOUNDED_HTTP });
  return sqs;
}

export async function sendToQueue(queueUrl: string, delivery: Delivery): Promise<void> {
  const { SendMessageCommand } = await sqsApi();
  await (await sqsClient()).send(new SendMessageCommand(await queueMessage(queueUrl, delivery)), inTime());
}

/**
 * One ChangeMessageVisibilityBatch for the deliveries waiting for the table. If it fails, each
 * comes back after the queue's visibility timeout instead, one receive spent early: logged.
 */
export async function hideForBackoff(records: SQSRecord[]): Promise<void> {
  const entries = records.map((record, i) => ({
    Id: String(i),
    ReceiptHandle: record.receiptHandle,
    VisibilityTimeout: backoffSeconds(Number(record.attributes.ApproximateReceiveCount)),
  }));
  log.warn('queued_events_waiting', { count: records.length, seconds: entries.map((e) => e.VisibilityTimeout) });
  try {
    const queueUrl = onebotQueueUrl();
    if (!queueUrl) throw new Error('ONEBOT_QUEUE_URL is not set');
    const { ChangeMessageVisibilityBatchCommand } = await sqsApi();
    const { Failed = [] } = await (await sqsClient()).send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }), inTime());
    if (Failed.length > 0)
      log.error('queued_event_backoff_failed', { failed: Failed.map((f) => ({ messageId: records[Number(f.Id)]?.messageId, code: f.Code })) });
  } catch (error) {
    log.error('queued_event_backoff_failed', { count: records.length, ...causeOf(error) });
  }
}
