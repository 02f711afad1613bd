import { feedQueueUrl } from '../config';
import { Outbox } from './outbox';
import { SqsDeliveryQueue } from './queue-sqs';

/**
 * The delivery queue of where this code runs, for the admin routes: the SQS FIFO queue in AWS,
 * where the stack sets FEED_QUEUE_URL (as functions/feed sends to it), the table's outbox on
 * `npm start` (as scripts/local/feed.ts sends to it; the feed's worker, in the feed's own
 * process, finds what is queued at its next look, within a second).
 */
export const queueHere = (): SqsDeliveryQueue | Outbox => (feedQueueUrl() ? new SqsDeliveryQueue() : new Outbox());
