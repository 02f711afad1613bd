import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { settings } from '../config';
import { BOUNDED_HTTP, inTime } from '../deadline';
import { countMisconfiguration } from '../health/emf';
import { causeOf, log } from '../log';
import { misconfiguration } from '../store/sdk-errors';
import { putBlob } from './blobs';
import type { Delivery } from './handle';
import { keptDelivery, storeKept, toKept } from './kept';

/**
 * The AWS side of keeping deliveries: the SQS queue `ONEBOT_QUEUE_URL`, consumed by the
 * onebot_queue function. A body whose base64 would not fit a message comfortably goes to
 * the bucket first and the message points at it.
 */
export const MAX_INLINE_BODY_BYTES = 192 * 1024;

let sqs: SQSClient | undefined;

export async function queueMessage(queueUrl: string, delivery: Delivery): Promise<SendMessageCommandInput> {
  const big = delivery.rawBody.length > MAX_INLINE_BODY_BYTES;
  const ref = big ? await putBlob(`onebot-deliveries/${randomUUID()}.json`, delivery.rawBody) : undefined;
  return { QueueUrl: queueUrl, MessageBody: JSON.stringify(toKept(delivery, ref)) };
}

export async function sendToQueue(queueUrl: string, delivery: Delivery): Promise<void> {
  sqs ??= new SQSClient({ region: settings().AWS_REGION, requestHandler: BOUNDED_HTTP });
  await sqs.send(new SendMessageCommand(await queueMessage(queueUrl, delivery)), inTime());
}

/**
 * Stores each queued delivery; a failed one is reported back alone (partial batch response),
 * so SQS retries only it and, after maxReceiveCount, moves it to the dead-letter queue.
 */
export async function storeQueued(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await storeKept(keptDelivery.parse(JSON.parse(record.body)));
    } catch (error) {
      log.error('queued_event_failed', { messageId: record.messageId, ...causeOf(error) });
      if (misconfiguration(error)) countMisconfiguration();
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
