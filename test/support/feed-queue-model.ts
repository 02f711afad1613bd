import { FEED_QUEUE } from '../../infra/feed';
import { RETRY_SCHEDULE_SECONDS } from '../../shared/feed/schedule';
import { SqsModel } from './sqs-model';

/** The SQS FIFO queue model set as infra/feed.ts sets the deliveries' queue: one message per invocation, its visibility, redrive count and retentions. */
export const stackFeedQueue = (start = Date.now()): SqsModel =>
  new SqsModel(
    {
      fifo: true,
      batchSize: FEED_QUEUE.batchSize,
      visibilitySeconds: FEED_QUEUE.visibilitySeconds,
      maxReceiveCount: RETRY_SCHEDULE_SECONDS.length + FEED_QUEUE.spareReceives,
      retentionSeconds: FEED_QUEUE.retentionDays * 86_400,
      deadLetterRetentionSeconds: FEED_QUEUE.deadLetterRetentionDays * 86_400,
    },
    start,
  );
