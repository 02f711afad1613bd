import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, TrimmedDataAccessException } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { toLambdaRecord } from './lambda-record';
import { describeShards } from './shards';

/** How long DynamoDB Streams keeps a record: a replay from a time reaches back no further. */
export const STREAM_RETENTION_HOURS = 24;

/** Per shard, the sequence number of the last record handled: where reading resumes. */
export type Checkpoint = Readonly<Record<string, string>>;

/** The stream's records at the checkpoint are older than its retention (24 h): they are gone. */
export class CheckpointTrimmed extends Error {
  override readonly name = 'CheckpointTrimmed';
}

/** The table's stream, or an error saying it has none. */
export async function streamArnOf(dynamo: DynamoDBClient, tableName: string): Promise<string> {
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  if (!Table?.StreamSpecification?.StreamEnabled || !Table.LatestStreamArn) throw new Error(`table ${tableName} has no stream enabled`);
  return Table.LatestStreamArn;
}

/**
 * An iterator of one shard after sequence number `after` (at its trim horizon when absent). An
 * `after` older than the retention throws CheckpointTrimmed.
 */
export async function shardIterator(client: DynamoDBStreamsClient, streamArn: string, shardId: string, after: string | undefined): Promise<string> {
  try {
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after === undefined ? { ShardIteratorType: 'TRIM_HORIZON' } : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
      }),
    );
    return ShardIterator!;
  } catch (error) {
    if (error instanceof TrimmedDataAccessException && after !== undefined)
      throw new CheckpointTrimmed(`shard ${shardId}: the records after ${after} are past the stream's retention`);
    throw error;
  }
}

/**
 * Up to `limit` records from an iterator, shaped as Lambda gives them, and the iterator after
 * them: none when the shard is closed and read to its end.
 */
export async function readRecords(
  client: DynamoDBStreamsClient,
  streamArn: string,
  iterator: string,
  limit: number,
): Promise<{ records: DynamoDBRecord[]; next: string | undefined }> {
  const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
  return { records: (page.Records ?? []).map((r) => toLambdaRecord(r, streamArn)), next: page.NextShardIterator };
}

/** A replay's range of the stream, by its records' own times (ApproximateCreationDateTime, epoch seconds), both ends in. */
export interface StreamRange {
  from: number;
  until: number;
}

/**
 * Where a replay's reading of the stream stands: the shards read to the range's end (or their
 * own), and how far into the one it was reading. Each shard's records are in commit order, and
 * the shards are read each after its parent, so what follows the position is all that is left.
 */
export interface StreamPosition {
  done: ReadonlyArray<string>;
  at?: { shard: string; after: string };
}

const stamp = (r: DynamoDBRecord): number => r.dynamodb?.ApproximateCreationDateTime ?? 0;

/**
 * The start of a replay from `since`: the start of its minute. DynamoDB stamps a record to the
 * second, DynamoDB Local to the minute, and a replay that gives a few seconds more is still at
 * least once, where one that gave less would lose changes.
 */
export const rangeFrom = (since: Date): number => Math.floor(since.getTime() / 60_000) * 60;

/**
 * The stream's records within `range`, shard after shard (each after its parent), in pages, each
 * with the position after it: a replay that stops between pages goes on from that position. A
 * shard is read until a record past the range's end (its records come in commit order), its
 * first empty page while open (its end as of the reading), or its last while closed. A position
 * whose record the stream no longer keeps (older than its 24 hours) throws CheckpointTrimmed.
 */
export async function* readRange(
  client: DynamoDBStreamsClient,
  streamArn: string,
  range: StreamRange,
  position: StreamPosition = { done: [] },
  limit = 1000,
): AsyncGenerator<{ records: DynamoDBRecord[]; position: StreamPosition }> {
  let done = position.done;
  for (const shard of await describeShards(client, streamArn)) {
    if (done.includes(shard.id)) continue;
    let at = position.at?.shard === shard.id ? position.at.after : undefined;
    let iterator: string | undefined = await shardIterator(client, streamArn, shard.id, at);
    while (iterator) {
      const { records: read, next } = await readRecords(client, streamArn, iterator, limit);
      const past = read.some((r) => stamp(r) > range.until);
      iterator = past || (read.length === 0 && !shard.closed) ? undefined : next;
      at = read.at(-1)?.dynamodb?.SequenceNumber ?? at;
      if (!iterator) done = [...done, shard.id];
      const records = read.filter((r) => stamp(r) >= range.from && stamp(r) <= range.until);
      yield { records, position: iterator && at !== undefined ? { done, at: { shard: shard.id, after: at } } : { done } };
    }
  }
}
