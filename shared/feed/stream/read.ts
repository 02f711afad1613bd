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

/**
 * Every record still in the stream made at or after `since`, shard after shard (each after its
 * parent), in pages: for a replay from a point in time within the retention. From the start of
 * `since`'s minute: DynamoDB stamps a record to the second, DynamoDB Local to the minute, and a
 * replay that gives a few seconds more is still at least once, where one that gave less would
 * lose changes. An open shard is read to its first empty page, its end as of the reading; a
 * closed one to its last.
 */
export async function* readSince(client: DynamoDBStreamsClient, streamArn: string, since: Date, limit = 1000): AsyncGenerator<DynamoDBRecord[]> {
  const from = Math.floor(since.getTime() / 60_000) * 60;
  for (const shard of await describeShards(client, streamArn)) {
    let { ShardIterator } = await client.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.id, ShardIteratorType: 'TRIM_HORIZON' }));
    while (ShardIterator) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator, Limit: limit }));
      const records = (page.Records ?? []).map((r) => toLambdaRecord(r, streamArn)).filter((r) => (r.dynamodb?.ApproximateCreationDateTime ?? 0) >= from);
      if (records.length > 0) yield records;
      if ((page.Records ?? []).length === 0 && !shard.closed) break;
      ShardIterator = page.NextShardIterator;
    }
  }
}
