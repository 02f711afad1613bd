import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { passesRecordItemsFilter } from './record-items-filter';
import { adminClient } from '../../scripts/local/engine';
import { settings } from '../../shared/config';
import { streams } from '../../shared/feed/stream/client';
import { readRecords, shardIterator, streamArnOf } from '../../shared/feed/stream/read';
import { describeShards } from '../../shared/feed/stream/shards';
import { db } from '../../shared/store/client';

let marks = 0;

/**
 * Every record of this test file's table's stream so far, oldest first, as Lambda hands them over
 * (the feed's own reader, shared/feed/stream/read.ts). A marker item is written last and read up
 * to: the engines show a record a little after the write's answer, and the one shard keeps commit
 * order, so every write before the marker is in. The marker's own record is left out.
 */
export async function streamSoFar(): Promise<DynamoDBRecord[]> {
  const { DYNAMODB_ENDPOINT, TABLE_NAME } = settings();
  const marker = `mark-${++marks}`;
  await db().send(new PutCommand({ TableName: TABLE_NAME, Item: { pk: '_test_marker', sk: marker } }));
  const dynamo = adminClient(DYNAMODB_ENDPOINT!);
  try {
    const arn = await streamArnOf(dynamo, TABLE_NAME);
    const shards = await describeShards(streams(), arn);
    if (shards.length !== 1) throw new Error(`streamSoFar reads one shard; the stream has ${shards.length}`);
    const records: DynamoDBRecord[] = [];
    let iterator = await shardIterator(streams(), arn, shards[0].id, undefined);
    for (let reads = 0; reads < 2_000; reads++) {
      const page = await readRecords(streams(), arn, iterator, 1000);
      records.push(...page.records);
      // A shard still open always hands on an iterator.
      iterator = page.next!;
      if (records.some((r) => r.dynamodb?.Keys?.sk?.S === marker)) return records.filter((r) => r.dynamodb?.Keys?.pk?.S !== '_test_marker');
      if (page.records.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the stream never showed the marker ${marker}`);
  } finally {
    dynamo.destroy();
  }
}

/** The event Lambda's event source mapping builds of stream records: its filter (infra/feed.ts) applied, its stream's ARN on each. */
export function mappedEvent(records: ReadonlyArray<DynamoDBRecord>, streamArn: string): DynamoDBStreamEvent {
  const passes = (r: DynamoDBRecord) => passesRecordItemsFilter(r.dynamodb?.Keys?.pk?.S);
  return { Records: records.filter(passes).map((r) => ({ ...r, eventSourceARN: streamArn })) };
}
