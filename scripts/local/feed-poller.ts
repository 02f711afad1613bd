import type { DynamoDBRecord } from 'aws-lambda';
import { CheckpointTrimmed, type Checkpoint, readRecords, shardIterator, streamArnOf } from '../../shared/feed/stream/read';
import { describeShards, type ShardInfo } from '../../shared/feed/stream/shards';
import { causeOf, log } from '../../shared/log';
import { adminClient, streamsClient } from './engine';
import { checkpointFile, readCheckpoint, writeCheckpoint } from './feed-checkpoint';

/** Lambda's contract for a stream batch with ReportBatchItemFailures: the records to deliver again, by sequence number. */
export type Consume = (records: DynamoDBRecord[]) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

export interface FeedPollerOptions {
  endpoint: string;
  tableName: string;
  dataDir: string;
  consume: Consume;
  /** How often the stream is read when it had nothing new. */
  intervalMs?: number;
  /** Records per batch: Lambda's default for a DynamoDB stream. */
  batchSize?: number;
  /** The wait after a failed batch, doubled on each failure in a row up to 30 s. */
  retryMs?: number;
}

export interface FeedPoller {
  /** Finishes the batch in hand (its checkpoint written), then stops reading. */
  stop(): Promise<void>;
}

export const POLL_MS = 100;
const BATCH_SIZE = 100;
const RETRY_MS = 500;
const SHARDS_MS = 10_000;
const RETRY_CAP_MS = 30_000;

/**
 * The local server's reader of the table's stream: what the Lambda event source mapping is in
 * AWS. Hands each batch to `consume` and keeps a checkpoint per shard (./feed-checkpoint.ts),
 * written only after `consume` answered: a record is handed over at least once, and one handed
 * over in a batch whose answer never came (a kill -9) is handed over again. A failure reported
 * for a record hands that record and every one after it in its shard over again, as Lambda's
 * ReportBatchItemFailures does; a throw fails the whole batch.
 */
export function startFeedPoller(options: FeedPollerOptions): FeedPoller {
  const { endpoint, tableName, consume, intervalMs = POLL_MS, batchSize = BATCH_SIZE, retryMs = RETRY_MS } = options;
  const file = checkpointFile(options.dataDir);
  const dynamo = adminClient(endpoint);
  const streams = streamsClient(endpoint);
  let stopping = false;
  let wake: (() => void) | undefined;
  let stream:
    | {
        arn: string;
        checkpoint: Checkpoint;
        ended: Set<string>;
        /** Per shard, the iterator after the last page read, while it stays valid: one call a poll, not three. */
        positions: Map<string, string>;
        shards: ShardInfo[];
        shardsAt: number;
      }
    | undefined;
  let failures = 0;
  /** The last problem logged: one line per episode (an engine down for a minute is not 600 lines). */
  let lastProblem: string | undefined;

  const problem = (code: string, error: unknown) => {
    const { name, message } = causeOf(error);
    if (lastProblem === `${code}:${name}`) return;
    lastProblem = `${code}:${name}`;
    log.warn(code, { name, message });
  };

  /** Reads and hands over what is new; returns whether to come back at once (a full page, or work left). */
  async function poll(): Promise<boolean> {
    if (!stream) {
      const arn = await streamArnOf(dynamo, tableName);
      stream = { arn, checkpoint: readCheckpoint(file, arn), ended: new Set(), positions: new Map(), shards: [], shardsAt: 0 };
    }
    // The shards change only when one closes or AWS adds one: looked up again now and then.
    if (Date.now() - stream.shardsAt > SHARDS_MS) {
      stream.shards = await describeShards(streams, stream.arn);
      stream.shardsAt = Date.now();
    }
    const listed = new Set(stream.shards.map((s) => s.id));
    let more = false;
    for (const shard of stream.shards) {
      if (stopping) return false;
      if (stream.ended.has(shard.id)) continue;
      // A child shard waits until its parent is read to its end: an item's records stay in order.
      if (shard.parent && listed.has(shard.parent) && !stream.ended.has(shard.parent)) continue;
      const held = stream.positions.get(shard.id);
      let page: Awaited<ReturnType<typeof readRecords>>;
      try {
        page = await readRecords(streams, stream.arn, held ?? (await shardIterator(streams, stream.arn, shard.id, stream.checkpoint[shard.id])), batchSize);
      } catch (error) {
        stream.positions.delete(shard.id);
        // A held iterator expired or refused (DynamoDB Local refuses one taken while its shard was
        // empty): a fresh one from the checkpoint, at once.
        if (held !== undefined) return true;
        if (!(error instanceof CheckpointTrimmed)) throw error;
        // Off for longer than the retention: what was written meanwhile is gone from the stream.
        log.error('feed_checkpoint_trimmed', { shard: shard.id, after: stream.checkpoint[shard.id] });
        const { [shard.id]: _, ...rest } = stream.checkpoint;
        stream.checkpoint = rest;
        return true;
      }
      if (page.next === undefined) stream.positions.delete(shard.id);
      else stream.positions.set(shard.id, page.next);
      if (page.records.length === 0) {
        if (page.next === undefined) {
          stream.ended.add(shard.id);
          stream.shardsAt = 0;
        }
        continue;
      }
      const handled = await handOver(page.records);
      if (handled.length > 0) {
        stream.checkpoint = { ...stream.checkpoint, [shard.id]: handled.at(-1)!.dynamodb!.SequenceNumber! };
        await writeCheckpoint(file, stream.arn, stream.checkpoint);
      }
      if (handled.length < page.records.length) {
        // Read again from the checkpoint: the first failed record and every one after it.
        stream.positions.delete(shard.id);
        failures++;
        return false;
      }
      failures = 0;
      if (page.records.length === batchSize) more = true;
    }
    return more;
  }

  /** The records `consume` handled: those before the first it reported failed (none when it threw). */
  async function handOver(records: DynamoDBRecord[]): Promise<DynamoDBRecord[]> {
    let answer: Awaited<ReturnType<Consume>>;
    try {
      answer = await consume(records);
    } catch (error) {
      problem('feed_batch_failed', error);
      return [];
    }
    const failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
    if (failed.size === 0) return records;
    // An identifier that names no record of the batch fails all of it, as Lambda treats it.
    const first = Math.max(
      0,
      records.findIndex((r) => failed.has(r.dynamodb!.SequenceNumber!)),
    );
    log.warn('feed_batch_item_failures', { records: records.length, failed: failed.size, redelivered_from: first });
    return records.slice(0, first);
  }

  const running = (async () => {
    while (!stopping) {
      let again = false;
      try {
        again = await poll();
        lastProblem = undefined;
      } catch (error) {
        // The engine down, the table or its stream gone or made again: found afresh next time.
        if ((error as Error).name === 'ResourceNotFoundException') stream = undefined;
        problem('feed_poll_failed', error);
      }
      if (again || stopping) continue;
      const wait = failures > 0 ? Math.min(retryMs * 2 ** (failures - 1), RETRY_CAP_MS) : intervalMs;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, wait).unref();
      });
    }
  })();

  return {
    async stop() {
      stopping = true;
      wake?.();
      await running;
      dynamo.destroy();
      streams.destroy();
    },
  };
}
