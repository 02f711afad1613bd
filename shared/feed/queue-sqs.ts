import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { feedQueueUrl, settings } from '../config';
import { BOUNDED_HTTP, inTime } from '../invocation';
import { batchesOf } from './batches';
import { deliveryKeyOf, groupOf } from './group';
import type { Delivery, DeliveryQueue } from './queue';

let sqs: SQSClient | undefined;
/** One client per container; functions/feed_delivery changes visibility through it too. */
export const sqsClient = (): SQSClient => {
  sqs ??= new SQSClient({ region: settings().AWS_REGION, requestHandler: BOUNDED_HTTP });
  return sqs;
};

/** SendMessageBatch takes 10 entries, and (for a standard account) 256 KiB in all. */
const ENTRIES_PER_BATCH = 10;
const BYTES_PER_BATCH = 256 * 1024;

/**
 * The AWS DeliveryQueue: the SQS FIFO queue FEED_QUEUE_URL. A group per subscription and record
 * (MessageGroupId, ./group.ts), so SQS itself hands a group's messages out one at a time in the
 * order sent; MessageDeduplicationId names (subscription, change_id), so a stream batch the
 * consumer runs again within SQS's five-minute window queues each delivery once.
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(private readonly queueUrl = feedQueueUrl()) {}

  async send(deliveries: ReadonlyArray<Delivery>): Promise<void> {
    if (deliveries.length === 0) return;
    if (!this.queueUrl) throw new Error('FEED_QUEUE_URL is not set');
    for (const batch of batchesOf(deliveries.map(entryOf), (e) => Buffer.byteLength(e.MessageBody!), ENTRIES_PER_BATCH, BYTES_PER_BATCH))
      await this.sendBatch(batch);
  }

  /**
   * The deliveries in the queue, every subscription together, as SQS approximates them: those
   * waiting to be received and those received or hidden until their next attempt. SQS counts a
   * queue, not a message group, so a subscription's own count cannot be had.
   */
  async approximateCount(): Promise<number> {
    if (!this.queueUrl) throw new Error('FEED_QUEUE_URL is not set');
    const { Attributes = {} } = await sqsClient().send(
      new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      inTime(),
    );
    return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  }

  /** Entries SQS refused for a passing reason are sent once more; what still fails throws, and the stream's batch is retried (dedup keeps it once). */
  private async sendBatch(entries: SendMessageBatchRequestEntry[]): Promise<void> {
    let pending = entries;
    for (let round = 0; round < 2 && pending.length > 0; round++) {
      const { Failed = [] } = await sqsClient().send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: pending }), inTime());
      const failed = new Set(Failed.map((f) => f.Id));
      const refused = Failed.find((f) => f.SenderFault);
      if (refused) throw new Error(`SQS refused a feed delivery: ${refused.Code}`);
      pending = pending.filter((e) => failed.has(e.Id));
    }
    if (pending.length > 0) throw new Error(`SQS did not take ${pending.length} feed deliveries`);
  }
}

const entryOf = (delivery: Delivery, index: number): SendMessageBatchRequestEntry => ({
  Id: String(index),
  MessageBody: JSON.stringify(delivery),
  MessageGroupId: groupOf(delivery),
  MessageDeduplicationId: deliveryKeyOf(delivery),
});
