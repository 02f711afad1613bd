import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { adminClient, streamsClient } from '../../scripts/local/engine';
import { settings } from '../../shared/config';
import { db } from '../../shared/store/client';

/** A record of the Streams API in the shape Lambda hands the stream's records over: times in epoch seconds. */
export const asLambdaRecord = (r: _Record): DynamoDBRecord =>
  ({
    ...r,
    dynamodb: {
      ...r.dynamodb,
      ApproximateCreationDateTime: r.dynamodb?.ApproximateCreationDateTime && r.dynamodb.ApproximateCreationDateTime.getTime() / 1000,
    },
  }) as DynamoDBRecord;

let marks = 0;

/**
 * Every record of this test file's table's stream so far, oldest first, as Lambda would hand them
 * over. A marker item is written last and read up to: the engines show a record a little after
 * the write's answer, and the one shard keeps commit order, so every write before it is in.
 */
export async function streamSoFar(): Promise<DynamoDBRecord[]> {
  const endpoint = settings().DYNAMODB_ENDPOINT!;
  const TableName = settings().TABLE_NAME;
  const marker = `mark-${++marks}`;
  await db().send(new PutCommand({ TableName, Item: { pk: '_test_marker', sk: marker } }));
  const client = adminClient(endpoint);
  const streams = streamsClient(endpoint);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }));
    const shards = StreamDescription!.Shards!;
    if (shards.length !== 1) throw new Error(`streamSoFar reads one shard; the stream has ${shards.length}`);
    let iterator = (
      await streams.send(new GetShardIteratorCommand({ StreamArn: Table!.LatestStreamArn!, ShardId: shards[0].ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))
    ).ShardIterator;
    const records: _Record[] = [];
    for (let reads = 0; iterator && reads < 2_000; reads++) {
      const answer = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(answer.Records ?? []));
      if (records.some((r) => r.dynamodb?.Keys?.sk?.S === marker)) return records.filter((r) => r.dynamodb?.Keys?.pk?.S !== '_test_marker').map(asLambdaRecord);
      iterator = answer.NextShardIterator;
      if ((answer.Records ?? []).length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the stream never showed the marker ${marker}`);
  } finally {
    client.destroy();
    streams.destroy();
  }
}
