import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminClient, prepareTable, startDynalite, streamsClient } from '../../scripts/local/engine';
import { ensureTable } from '../../shared/store/table';
import { spawnDynalite } from '../support/dynalite-process';

// DynamoDB Streams straight against the engine, as DynamoDB answers it: run on dynalite (whose
// streams are patch 008) and on DynamoDB Local, with the same expectations, so that the change
// feed reads the same records on `npm start` as on the engine it is tested against.
const TableName = process.env.TABLE_NAME!;
const endpoint = process.env.DYNAMODB_ENDPOINT!;
let client: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let streamArn: string;
let shardId: string;

type Item = Record<string, AttributeValue>;
const key = (id: string): Item => ({ pk: { S: 'st' }, sk: { S: id } });
const item = (id: string, more: Item = {}): Item => ({ ...key(id), ...more });
const n = (value: number): AttributeValue => ({ N: String(value) });

beforeAll(async () => {
  // One attempt: a refused write must reach the test as the engine answered it.
  client = adminClient(endpoint, undefined, { maxAttempts: 1 });
  streams = streamsClient(endpoint, { maxAttempts: 1 });
  const { Table } = await client.send(new DescribeTableCommand({ TableName }));
  streamArn = Table!.LatestStreamArn!;
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  shardId = StreamDescription!.Shards![0].ShardId!;
});
afterAll(() => {
  client.destroy();
  streams.destroy();
});

async function iterator(type: 'TRIM_HORIZON' | 'LATEST' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER', SequenceNumber?: string) {
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, SequenceNumber }),
  );
  return ShardIterator!;
}

/**
 * Reads from `position` until `count` records came (engines make a record visible a little after
 * the write's answer; DynamoDB Local too), and the empty read after them: what a write emitted
 * beyond `count` shows as more records than expected.
 */
async function readRecords(position: string, count: number): Promise<{ records: StreamRecord[]; next: string }> {
  const records: StreamRecord[] = [];
  let next = position;
  for (let reads = 0; reads < 200; reads++) {
    const answer = await streams.send(new GetRecordsCommand({ ShardIterator: next }));
    records.push(...(answer.Records ?? []));
    next = answer.NextShardIterator!;
    if (records.length >= count && (answer.Records ?? []).length === 0) return { records, next };
    if ((answer.Records ?? []).length === 0) await new Promise((r) => setTimeout(r, 25));
  }
  return { records, next };
}

/** What a record says, without what differs by engine and moment (ids, times, sizes, sequence numbers). */
const told = (r: StreamRecord) => ({
  eventName: r.eventName,
  Keys: r.dynamodb?.Keys,
  NewImage: r.dynamodb?.NewImage,
  OldImage: r.dynamodb?.OldImage,
});
const byKey = (a: { Keys?: Item }, b: { Keys?: Item }) => (a.Keys!.sk.S! < b.Keys!.sk.S! ? -1 : 1);

async function refused(send: () => Promise<unknown>): Promise<string> {
  try {
    await send();
  } catch (error) {
    return (error as Error).name;
  }
  throw new Error('the engine accepted a write the test expects refused');
}

describe('the table and its stream', () => {
  test('DescribeTable, ListStreams and DescribeStream name one enabled stream of both images, with one shard', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    expect(Table!.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(Table!.LatestStreamArn).toMatch(new RegExp(`^arn:aws:dynamodb:[^:]+:\\d+:table/${TableName}/stream/${Table!.LatestStreamLabel}$`));
    const listed = await streams.send(new ListStreamsCommand({ TableName }));
    expect(listed.Streams).toEqual([{ StreamArn: Table!.LatestStreamArn, TableName, StreamLabel: Table!.LatestStreamLabel }]);
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    expect(StreamDescription).toMatchObject({
      StreamArn: streamArn,
      StreamStatus: 'ENABLED',
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      TableName,
      KeySchema: Table!.KeySchema,
    });
    expect(StreamDescription!.Shards).toHaveLength(1);
    expect(StreamDescription!.Shards![0].SequenceNumberRange!.StartingSequenceNumber).toMatch(/^\d{21,}$/);
  });

  test('an unknown stream is ResourceNotFoundException', async () => {
    const unknown = streamArn.replace(/\/stream\/.*$/, '/stream/2000-01-01T00:00:00.000');
    expect(await refused(() => streams.send(new DescribeStreamCommand({ StreamArn: unknown })))).toBe('ResourceNotFoundException');
  });

  test('ensureTable gives a table made without a stream its stream', async () => {
    const name = `${TableName}_nostream`;
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    expect(await ensureTable(client, name)).toBe(false);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table!.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(Table!.LatestStreamArn).toBeDefined();
  });
});

describe('a stream disabled', () => {
  test('is DISABLED, its one shard closed at its last record: read to the end, GetRecords gives no NextShardIterator; writes after it emit nothing', async () => {
    const name = `${TableName}_disabled`;
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    await ensureTable(client, name);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    for (const id of ['1', '2']) await client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: id } } }));
    await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
    await client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: '3' } } }));
    const after = await client.send(new DescribeTableCommand({ TableName: name }));
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }));
    // DynamoDB Local then answers no StreamSpecification, dynalite StreamEnabled false; both keep the latest stream's ARN.
    expect(after.Table!.StreamSpecification?.StreamEnabled).not.toBe(true);
    expect(after.Table!.LatestStreamArn).toBe(Table!.LatestStreamArn);
    const shard = StreamDescription!.Shards![0];
    let position = (
      await streams.send(new GetShardIteratorCommand({ StreamArn: Table!.LatestStreamArn!, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))
    ).ShardIterator;
    const keys: string[] = [];
    for (let reads = 0; position && reads < 50; reads++) {
      const answer = await streams.send(new GetRecordsCommand({ ShardIterator: position }));
      keys.push(...(answer.Records ?? []).map((r) => r.dynamodb!.Keys!.pk.S!));
      position = answer.NextShardIterator;
    }
    expect(keys).toEqual(['1', '2']);
    expect(position).toBeUndefined();
    expect(StreamDescription).toMatchObject({ StreamStatus: 'DISABLED', StreamViewType: 'KEYS_ONLY' });
    expect(shard.SequenceNumberRange!.EndingSequenceNumber).toMatch(/^\d{21,}$/);
  });
});

describe('the records writes of every kind emit, in order, with both images', () => {
  test('one record per item changed, none for a write that changed nothing or did not commit', async () => {
    // Taken after the first write, from the start of the table's (so far empty) stream: DynamoDB
    // Local answers an iterator taken while its shard is empty with TrimmedDataAccessException
    // once a record is written.
    let position: string | undefined;
    const seen: StreamRecord[] = [];
    /** Runs `write`, then expects exactly `expected` from the stream (as a set when one write changes several items). */
    const step = async (write: () => Promise<unknown>, expected: ReturnType<typeof told>[]) => {
      await write();
      position ??= await iterator('TRIM_HORIZON');
      const { records, next } = await readRecords(position, expected.length);
      position = next;
      seen.push(...records);
      expect(records.map(told).sort(byKey)).toEqual([...expected].sort(byKey));
    };
    const a1 = item('a', { v: n(1) });
    const a2 = item('a', { v: n(2) });
    const a3 = item('a', { v: n(3), tags: { SS: ['x'] } });
    await step(() => client.send(new PutItemCommand({ TableName, Item: a1 })), [{ eventName: 'INSERT', Keys: key('a'), NewImage: a1, OldImage: undefined }]);
    // A put of the same item, an update to the same value, a delete of a missing item: nothing.
    await step(() => client.send(new PutItemCommand({ TableName, Item: a1 })), []);
    await step(
      () => client.send(new UpdateItemCommand({ TableName, Key: key('a'), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': n(1) } })),
      [],
    );
    await step(() => client.send(new DeleteItemCommand({ TableName, Key: key('missing') })), []);
    await step(() => client.send(new PutItemCommand({ TableName, Item: a2 })), [{ eventName: 'MODIFY', Keys: key('a'), NewImage: a2, OldImage: a1 }]);
    await step(
      () =>
        client.send(
          new UpdateItemCommand({
            TableName,
            Key: key('a'),
            UpdateExpression: 'SET v = v + :one ADD tags :t',
            ExpressionAttributeValues: { ':one': n(1), ':t': { SS: ['x'] } },
          }),
        ),
      [{ eventName: 'MODIFY', Keys: key('a'), NewImage: a3, OldImage: a2 }],
    );
    // An update of a missing item makes it: INSERT.
    await step(
      () => client.send(new UpdateItemCommand({ TableName, Key: key('b'), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': n(1) } })),
      [{ eventName: 'INSERT', Keys: key('b'), NewImage: item('b', { v: n(1) }), OldImage: undefined }],
    );
    // Failed conditions: nothing.
    expect(
      await refused(() => client.send(new PutItemCommand({ TableName, Item: item('a', { v: n(9) }), ConditionExpression: 'attribute_not_exists(pk)' }))),
    ).toBe('ConditionalCheckFailedException');
    expect(
      await refused(() =>
        client.send(
          new UpdateItemCommand({
            TableName,
            Key: key('a'),
            UpdateExpression: 'SET v = :v',
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: { ':v': n(9) },
          }),
        ),
      ),
    ).toBe('ConditionalCheckFailedException');
    expect(await refused(() => client.send(new DeleteItemCommand({ TableName, Key: key('a'), ConditionExpression: 'attribute_not_exists(pk)' })))).toBe(
      'ConditionalCheckFailedException',
    );
    await step(
      () => client.send(new DeleteItemCommand({ TableName, Key: key('b') })),
      [{ eventName: 'REMOVE', Keys: key('b'), NewImage: undefined, OldImage: item('b', { v: n(1) }) }],
    );
    // A batch: one record per item; a refused batch (the same key twice): nothing.
    const c1 = item('c', { v: n(1) });
    const d1 = item('d', { v: n(1) });
    await step(
      () =>
        client.send(
          new BatchWriteItemCommand({
            RequestItems: { [TableName]: [{ PutRequest: { Item: c1 } }, { PutRequest: { Item: d1 } }, { DeleteRequest: { Key: key('a') } }] },
          }),
        ),
      [
        { eventName: 'INSERT', Keys: key('c'), NewImage: c1, OldImage: undefined },
        { eventName: 'INSERT', Keys: key('d'), NewImage: d1, OldImage: undefined },
        { eventName: 'REMOVE', Keys: key('a'), NewImage: undefined, OldImage: a3 },
      ],
    );
    expect(
      await refused(() =>
        client.send(new BatchWriteItemCommand({ RequestItems: { [TableName]: [{ PutRequest: { Item: item('e') } }, { DeleteRequest: { Key: key('e') } }] } })),
      ),
    ).toBe('ValidationException');
    // A transaction: one record per item written (none for its ConditionCheck); a cancelled one: nothing.
    const transactItems = (condition: string) => [
      { Put: { TableName, Item: item('f', { v: n(1) }) } },
      { Update: { TableName, Key: key('c'), UpdateExpression: 'SET v = :two', ExpressionAttributeValues: { ':two': n(2) } } },
      { Delete: { TableName, Key: key('d') } },
      { ConditionCheck: { TableName, Key: key('g'), ConditionExpression: condition } },
    ];
    expect(await refused(() => client.send(new TransactWriteItemsCommand({ TransactItems: transactItems('attribute_exists(pk)') })))).toBe(
      'TransactionCanceledException',
    );
    await step(
      () => client.send(new TransactWriteItemsCommand({ TransactItems: transactItems('attribute_not_exists(pk)') })),
      [
        { eventName: 'INSERT', Keys: key('f'), NewImage: item('f', { v: n(1) }), OldImage: undefined },
        { eventName: 'MODIFY', Keys: key('c'), NewImage: item('c', { v: n(2) }), OldImage: c1 },
        { eventName: 'REMOVE', Keys: key('d'), NewImage: undefined, OldImage: d1 },
      ],
    );

    // Every record as DynamoDB's: its source, version, region, view type, a size, a unique id and
    // a sequence number of 21 digits or more, increasing.
    for (const r of seen) {
      expect(r).toMatchObject({ eventSource: 'aws:dynamodb', eventVersion: '1.1', awsRegion: expect.any(String), eventID: expect.any(String) });
      expect(r.dynamodb).toMatchObject({ StreamViewType: 'NEW_AND_OLD_IMAGES', SizeBytes: expect.any(Number), ApproximateCreationDateTime: expect.any(Date) });
      expect(r.dynamodb!.SequenceNumber).toMatch(/^\d{21,}$/);
    }
    expect(new Set(seen.map((r) => r.eventID)).size).toBe(seen.length);
    const sequence = seen.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
    expect(sequence).toEqual([...sequence].sort((x, y) => (x < y ? -1 : 1)));
    expect(new Set(sequence).size).toBe(sequence.length);
  });
});

describe('iterators', () => {
  test('AT and AFTER a sequence number, TRIM_HORIZON and LATEST start where DynamoDB starts them; Limit pages resume', async () => {
    let latest = await iterator('LATEST');
    for (const id of ['i1', 'i2', 'i3', 'i4']) await client.send(new PutItemCommand({ TableName, Item: item(id) }));
    const { records: all } = await readRecords(latest, 4);
    expect(all.map((r) => r.dynamodb!.Keys!.sk.S)).toEqual(['i1', 'i2', 'i3', 'i4']);
    const sequence = all.map((r) => r.dynamodb!.SequenceNumber!);

    const at = await readRecords(await iterator('AT_SEQUENCE_NUMBER', sequence[1]), 3);
    expect(at.records.map((r) => r.dynamodb!.SequenceNumber)).toEqual(sequence.slice(1));
    const after = await readRecords(await iterator('AFTER_SEQUENCE_NUMBER', sequence[1]), 2);
    expect(after.records.map((r) => r.dynamodb!.SequenceNumber)).toEqual(sequence.slice(2));
    const fromStart = await readRecords(await iterator('TRIM_HORIZON'), 4);
    expect(fromStart.records.map((r) => r.dynamodb!.SequenceNumber).slice(-4)).toEqual(sequence);

    // One record per read, each read from the last one's NextShardIterator: the same records.
    let position = await iterator('AT_SEQUENCE_NUMBER', sequence[0]);
    const paged: string[] = [];
    while (paged.length < 4) {
      const answer = await streams.send(new GetRecordsCommand({ ShardIterator: position, Limit: 1 }));
      expect((answer.Records ?? []).length).toBeLessThanOrEqual(1);
      paged.push(...(answer.Records ?? []).map((r) => r.dynamodb!.SequenceNumber!));
      position = answer.NextShardIterator!;
    }
    expect(paged).toEqual(sequence);

    // An iterator read to the end resumes with what is written after: nothing twice, nothing skipped.
    latest = at.next;
    await client.send(new PutItemCommand({ TableName, Item: item('i5') }));
    const resumed = await readRecords(latest, 1);
    expect(resumed.records.map((r) => r.dynamodb!.Keys!.sk.S)).toEqual(['i5']);
  });
});

describe('concurrent writes', () => {
  test('a reader polling while many items are written sees every record once, in sequence order', async () => {
    // Taken once the stream has records (see above: DynamoDB Local and an empty shard).
    await client.send(new PutItemCommand({ TableName, Item: item('p-start') }));
    const { records: before } = await readRecords(await iterator('TRIM_HORIZON'), 1);
    let position = await iterator('AFTER_SEQUENCE_NUMBER', before.at(-1)!.dynamodb!.SequenceNumber);
    const ids = Array.from({ length: 60 }, (_, i) => `p${i}`);
    const polled: StreamRecord[] = [];
    let writing = true;
    const poller = (async () => {
      while (writing || polled.length < ids.length) {
        const answer = await streams.send(new GetRecordsCommand({ ShardIterator: position }));
        polled.push(...(answer.Records ?? []));
        position = answer.NextShardIterator!;
        if ((answer.Records ?? []).length === 0) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(ids.map((id) => client.send(new PutItemCommand({ TableName, Item: item(id) }))));
    writing = false;
    await poller;
    expect(polled.map((r) => r.dynamodb!.Keys!.sk.S).sort()).toEqual([...ids].sort());
    const sequence = polled.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
    expect(sequence).toEqual([...sequence].sort((x, y) => (x < y ? -1 : 1)));
  });
});

// Retention, iterator lifetimes and a crash are the embedded engine's own: DynamoDB Local's are
// fixed (and not ours to kill).
const onEmbeddedEngine = process.env.RG_TEST_ENGINE === 'dynalite' ? describe : describe.skip;

onEmbeddedEngine('dynalite: retention and iterator lifetime, shortened for the test', () => {
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  async function engineWith(options: { streamRetentionMs?: number; streamIteratorMs?: number }) {
    const engine = await startDynalite(options);
    await prepareTable(engine.endpoint, 'short');
    const dynamo = adminClient(engine.endpoint, undefined, { maxAttempts: 1 });
    const reader = streamsClient(engine.endpoint, { maxAttempts: 1 });
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: 'short' }));
    const { StreamDescription } = await reader.send(new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }));
    const shard = { StreamArn: Table!.LatestStreamArn!, ShardId: StreamDescription!.Shards![0].ShardId! };
    const stop = async () => {
      dynamo.destroy();
      reader.destroy();
      await new Promise((r) => engine.server.close(r));
    };
    return { dynamo, reader, shard, stop };
  }
  const nameOf = async (send: () => Promise<unknown>) => refused(send).catch((error: Error) => error.message);

  test('records older than the retention are trimmed: TRIM_HORIZON starts after them, an iterator or sequence number before them is TrimmedDataAccessException', async () => {
    const { dynamo, reader, shard, stop } = await engineWith({ streamRetentionMs: 300 });
    try {
      await dynamo.send(new PutItemCommand({ TableName: 'short', Item: item('old') }));
      const start = await reader.send(new GetShardIteratorCommand({ ...shard, ShardIteratorType: 'TRIM_HORIZON' }));
      const { Records } = await reader.send(new GetRecordsCommand({ ShardIterator: start.ShardIterator }));
      const oldSequence = Records![0].dynamodb!.SequenceNumber!;
      // Past the retention, and past the second the record's time is rounded down to.
      await wait(1500);
      await dynamo.send(new PutItemCommand({ TableName: 'short', Item: item('new') }));
      expect(await nameOf(() => reader.send(new GetRecordsCommand({ ShardIterator: start.ShardIterator })))).toBe('TrimmedDataAccessException');
      expect(
        await nameOf(() => reader.send(new GetShardIteratorCommand({ ...shard, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: oldSequence }))),
      ).toBe('TrimmedDataAccessException');
      const horizon = await reader.send(new GetShardIteratorCommand({ ...shard, ShardIteratorType: 'TRIM_HORIZON' }));
      const kept = await reader.send(new GetRecordsCommand({ ShardIterator: horizon.ShardIterator }));
      expect(kept.Records!.map((r) => r.dynamodb!.Keys!.sk.S)).toEqual(['new']);
    } finally {
      await stop();
    }
  });

  test('an iterator older than its lifetime is ExpiredIteratorException; a fresh one from the same point reads on', async () => {
    const { dynamo, reader, shard, stop } = await engineWith({ streamIteratorMs: 300 });
    try {
      await dynamo.send(new PutItemCommand({ TableName: 'short', Item: item('x') }));
      const start = await reader.send(new GetShardIteratorCommand({ ...shard, ShardIteratorType: 'TRIM_HORIZON' }));
      await wait(600);
      expect(await nameOf(() => reader.send(new GetRecordsCommand({ ShardIterator: start.ShardIterator })))).toBe('ExpiredIteratorException');
      const again = await reader.send(new GetShardIteratorCommand({ ...shard, ShardIteratorType: 'TRIM_HORIZON' }));
      const { Records } = await reader.send(new GetRecordsCommand({ ShardIterator: again.ShardIterator }));
      expect(Records!.map((r) => r.dynamodb!.Keys!.sk.S)).toEqual(['x']);
    } finally {
      await stop();
    }
  });
});

onEmbeddedEngine('dynalite: kill -9 mid bulk write', () => {
  test("after the restart every item has exactly its records: each one's old image the one before's new image, the last new image the item as stored", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recordgate-stream-crash-'));
    let engine = spawnDynalite(dir);
    const table = 'crash';
    const writers = 8;
    // Killed on the write acknowledged as this many: the others' batches are in flight then.
    const killAt = 120;
    try {
      await prepareTable(await engine.endpoint, table);
      const dynamo = adminClient(await engine.endpoint, undefined, { maxAttempts: 1 });
      const acknowledged = new Map<string, number>();
      // Items whose write was sent but not answered when the engine died: it may have landed or not.
      const unanswered = new Set<string>();
      let count = 0;
      let killed = false;
      const writer = async (w: number) => {
        const own: string[] = [];
        for (let s = 0; !killed; s++) {
          try {
            if (s % 3 === 0 || own.length < 2) {
              // A bulk create of 25 items, and a delete of one item written before.
              const ids = Array.from({ length: own.length > 0 ? 24 : 25 }, (_, i) => `w${w}-s${s}-${i}`);
              const gone = own.length > 0 ? own.splice(s % own.length, 1) : [];
              for (const id of [...ids, ...gone]) unanswered.add(id);
              await dynamo.send(
                new BatchWriteItemCommand({
                  RequestItems: {
                    [table]: [
                      ...ids.map((id) => ({ PutRequest: { Item: { pk: { S: 'c' }, sk: { S: id }, v: n(1) } } })),
                      ...gone.map((id) => ({ DeleteRequest: { Key: { pk: { S: 'c' }, sk: { S: id } } } })),
                    ],
                  },
                }),
              );
              for (const id of ids) acknowledged.set(id, 1);
              for (const id of gone) acknowledged.set(id, 0);
              for (const id of [...ids, ...gone]) unanswered.delete(id);
              own.push(...ids);
            } else if (s % 3 === 1) {
              const id = own[s % own.length];
              const answer = await dynamo.send(
                new UpdateItemCommand({
                  TableName: table,
                  Key: { pk: { S: 'c' }, sk: { S: id } },
                  UpdateExpression: 'ADD v :one',
                  ExpressionAttributeValues: { ':one': n(1) },
                  ReturnValues: 'UPDATED_NEW',
                }),
              );
              acknowledged.set(id, Number(answer.Attributes!.v.N));
            } else {
              const pair = [own[s % own.length], own[(s + 1) % own.length]];
              await dynamo.send(
                new TransactWriteItemsCommand({
                  TransactItems: pair.map((id) => ({
                    Update: {
                      TableName: table,
                      Key: { pk: { S: 'c' }, sk: { S: id } },
                      UpdateExpression: 'ADD v :one',
                      ExpressionAttributeValues: { ':one': n(1) },
                    },
                  })),
                }),
              );
            }
          } catch {
            if (killed) return;
            throw new Error(`writer ${w} failed before the kill`);
          }
          if (++count === killAt) {
            killed = true;
            engine.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
      await engine.exited;
      dynamo.destroy();

      engine = spawnDynalite(dir);
      const endpoint = await engine.endpoint;
      const after = adminClient(endpoint);
      const reader = streamsClient(endpoint);
      const stored = new Map<string, Item>();
      let ExclusiveStartKey: Item | undefined;
      do {
        const page = await after.send(new ScanCommand({ TableName: table, ExclusiveStartKey, ConsistentRead: true }));
        for (const found of page.Items ?? []) stored.set(found.sk.S!, found);
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      const { Table } = await after.send(new DescribeTableCommand({ TableName: table }));
      const { StreamDescription } = await reader.send(new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }));
      let position = (
        await reader.send(
          new GetShardIteratorCommand({
            StreamArn: Table!.LatestStreamArn!,
            ShardId: StreamDescription!.Shards![0].ShardId!,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        )
      ).ShardIterator;
      const records: StreamRecord[] = [];
      for (;;) {
        const answer = await reader.send(new GetRecordsCommand({ ShardIterator: position }));
        if ((answer.Records ?? []).length === 0) break;
        records.push(...answer.Records!);
        position = answer.NextShardIterator;
      }
      after.destroy();
      reader.destroy();

      const problems: string[] = [];
      const last = new Map<string, Item | undefined>();
      for (const r of records) {
        const id = r.dynamodb!.Keys!.sk.S!;
        if (JSON.stringify(r.dynamodb!.OldImage) !== JSON.stringify(last.get(id)))
          problems.push(`${id}: record ${r.dynamodb!.SequenceNumber} does not follow the one before`);
        last.set(id, r.dynamodb!.NewImage);
      }
      for (const id of new Set([...stored.keys(), ...last.keys()])) {
        if (JSON.stringify(last.get(id)) !== JSON.stringify(stored.get(id)))
          problems.push(`${id}: stored ${JSON.stringify(stored.get(id))}, records end at ${JSON.stringify(last.get(id))}`);
      }
      for (const [id, version] of acknowledged) {
        const v = stored.has(id) ? Number(stored.get(id)!.v.N) : 0;
        if (unanswered.has(id)) continue;
        if (version === 0 ? stored.has(id) : v < version) problems.push(`${id}: acknowledged at ${version}, stored ${v}`);
      }
      expect(problems).toEqual([]);
      // The check saw writes of every kind: a check of an empty stream proves nothing.
      expect(stored.size).toBeGreaterThan(100);
      expect(new Set(records.map((r) => r.eventName))).toEqual(new Set(['INSERT', 'MODIFY', 'REMOVE']));
    } finally {
      engine.child.kill('SIGKILL');
      await engine.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
