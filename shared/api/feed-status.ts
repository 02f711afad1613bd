import type * as z from 'zod';
import type { Operation } from '../contract';
import { adminSubscriptions } from './feed-subscriptions';
import { isWebhook } from '../feed/deliver';
import { queueHere } from '../feed/queue-here';
import { SqsDeliveryQueue } from '../feed/queue-sqs';
import { feedState, localFeedState } from '../feed/replay';
import type { feedStatusAnswerSchema } from './responses';

type Answer = z.infer<typeof feedStatusAnswerSchema>;

/**
 * GET /api/feed: each webhook subscription's delivery state (shared/feed/replay.ts). Pending
 * deliveries are counted per subscription where they wait in the table (npm start); SQS counts
 * a queue, not a message group, so in AWS the answer gives the whole queue's approximate count.
 */
export const feedStatusOperation: Operation = async () => {
  const webhooks = (await adminSubscriptions()).filter(isWebhook);
  const queue = queueHere();
  const inSqs = queue instanceof SqsDeliveryQueue;
  const [subscriptions, queued] = await Promise.all([
    Promise.all(webhooks.map((s) => (inSqs ? feedState(s.name) : localFeedState(s.name)))),
    inSqs ? queue.approximateCount() : undefined,
  ]);
  const answer: Answer = { subscriptions, ...(queued === undefined ? {} : { queued }) };
  return { data: answer };
};
