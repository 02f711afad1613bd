import type * as z from 'zod';
import { settings } from '../config';
import type { Operation } from '../contract';
import { adminSubscriptions } from './feed-subscriptions';
import { ApiError } from '../errors';
import { isWebhook } from '../feed/deliver';
import { queueHere } from '../feed/queue-here';
import { replayDeadLetters, replaySince } from '../feed/replay';
import { streams } from '../feed/stream/client';
import { readSince, STREAM_RETENTION_HOURS, streamArnOf } from '../feed/stream/read';
import { tableClient } from '../store/client';
import { parseBody } from './record-operation';
import { feedReplayRequest } from './requests/feed-replay';
import type { feedReplayAnswerSchema } from './responses';

type Answer = z.infer<typeof feedReplayAnswerSchema>;

/** A time the stream no longer reaches is refused, not answered with a replay that silently misses what was trimmed. */
function checkWithinRetention(since: string): Date {
  const time = new Date(since);
  if (time.getTime() >= Date.now() - STREAM_RETENTION_HOURS * 3600_000) return time;
  const message = `is older than the stream keeps its records (${STREAM_RETENTION_HOURS} hours): replay the dead letters, or a time within the last ${STREAM_RETENTION_HOURS} hours`;
  throw new ApiError('invalid_request', `Invalid request body: since: ${message}`, { details: [{ path: 'since', message }] });
}

/**
 * POST /api/feed/{subscription}/replay: the subscription's dead letters, or the stream's changes
 * since a time that it matches, queued again (shared/feed/replay.ts) on the queue the consumer
 * sends to, with their own change_id. A bus subscription has no deliveries here to replay.
 */
export const feedReplayOperation: Operation = async ({ params, body }) => {
  const name = params.subscription;
  const subscription = (await adminSubscriptions()).find((s) => s.name === name);
  if (!subscription) throw new ApiError('not_found', `No subscription named ${JSON.stringify(name)} in SUBSCRIPTIONS`, { subscription: name });
  if (!isWebhook(subscription))
    throw new ApiError('invalid_request', `${name} sends to an EventBridge bus, which keeps no deliveries here: replay its events with an EventBridge archive`);
  const asked = parseBody(feedReplayRequest, body);
  const queue = queueHere();
  let queued: number;
  if (asked.since === undefined) queued = await replayDeadLetters(name, queue);
  else {
    const since = checkWithinRetention(asked.since);
    queued = await replaySince(subscription, readSince(streams(), await streamArnOf(tableClient(), settings().TABLE_NAME), since), queue);
  }
  const answer: Answer = { subscription: name, queued };
  return { data: answer };
};
