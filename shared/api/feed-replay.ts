import type * as z from 'zod';
import { settings } from '../config';
import type { Operation } from '../contract';
import { adminSubscriptions } from './feed-subscriptions';
import { ApiError } from '../errors';
import { isWebhook } from '../feed/deliver';
import { queueHere } from '../feed/queue-here';
import { replayDeadLetters, replayRange } from '../feed/replay';
import { decodeReplayCursor, encodeReplayCursor, type ReplayCursor } from '../feed/replay-cursor';
import { streams } from '../feed/stream/client';
import { CheckpointTrimmed, rangeFrom, readRange, STREAM_RETENTION_HOURS, streamArnOf } from '../feed/stream/read';
import { bulkMayContinue } from '../invocation';
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

/** Where a replay of the stream starts: a range asked for (until absent: now), or the rest of one a cursor names. */
function replayAsked(name: string, asked: { since?: string; until?: string; cursor?: string }): ReplayCursor {
  if (asked.cursor === undefined) {
    const since = checkWithinRetention(asked.since!);
    const until = asked.until === undefined ? Date.now() : Date.parse(asked.until);
    return { subscription: name, range: { from: rangeFrom(since), until: Math.floor(until / 1000) }, position: { done: [] } };
  }
  const cursor = decodeReplayCursor(asked.cursor);
  if (cursor?.subscription !== name) throw new ApiError('invalid_cursor', `Invalid cursor: not a next_cursor of a replay of ${name}`);
  return cursor;
}

/**
 * POST /api/feed/{subscription}/replay: the subscription's dead letters, or the stream's changes
 * of a range that it matches, queued again (shared/feed/replay.ts) on the queue the consumer
 * sends to, with their own change_id. A range that does not fit the invocation's time stops
 * short of it (bulkMayContinue, as a bulk write does) and answers a cursor for the rest. A bus
 * subscription has no deliveries here to replay.
 */
export const feedReplayOperation: Operation = async ({ params, body }) => {
  const name = params.subscription;
  const subscription = (await adminSubscriptions()).find((s) => s.name === name);
  if (!subscription) throw new ApiError('not_found', `No subscription named ${JSON.stringify(name)} in SUBSCRIPTIONS`, { subscription: name });
  if (!isWebhook(subscription))
    throw new ApiError('invalid_request', `${name} sends to an EventBridge bus, which keeps no deliveries here: replay its events with an EventBridge archive`);
  const asked = parseBody(feedReplayRequest, body);
  const queue = queueHere();
  if (asked.dead_letters) {
    const answer: Answer = { subscription: name, queued: await replayDeadLetters(name, queue) };
    return { data: answer };
  }
  const { range, position } = replayAsked(name, asked);
  const arn = await streamArnOf(tableClient(), settings().TABLE_NAME);
  let replayed: Awaited<ReturnType<typeof replayRange>>;
  try {
    replayed = await replayRange(subscription, readRange(streams(), arn, range, position), queue, bulkMayContinue);
  } catch (error) {
    if (!(error instanceof CheckpointTrimmed)) throw error;
    throw new ApiError('invalid_cursor', `Invalid cursor: the stream no longer keeps where this replay stopped (${STREAM_RETENTION_HOURS} hours)`);
  }
  const { queued, stoppedAt } = replayed;
  const answer: Answer = {
    subscription: name,
    queued,
    next_cursor: stoppedAt ? encodeReplayCursor({ subscription: name, range, position: stoppedAt }) : null,
  };
  return { data: answer };
};
