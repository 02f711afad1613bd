import type { Change } from './change';

/** One change to hand to one subscription. */
export interface Delivery {
  subscription: string;
  change: Change;
}

/**
 * Where the stream's consumer leaves deliveries for the deliverer: SQS FIFO in AWS
 * (./queue-sqs.ts), the table-backed outbox locally (./outbox.ts). Both hold to the same rules:
 * - one group per (subscription, model, tenant, id): a group's deliveries go out one at a time,
 *   in the order sent, so a record's changes reach a subscription in commit order;
 * - sending the same (subscription, change_id) again keeps one delivery (stream redelivery);
 * - a failing or slow group holds back only itself: never a write, another record or another
 *   subscription.
 */
export interface DeliveryQueue {
  send(deliveries: ReadonlyArray<Delivery>): Promise<void>;
}
