import { type AttributeValue, DeleteItemCommand, type DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminClient, streamsClient } from '../../scripts/local/engine';
import { checkpointFile } from '../../scripts/local/feed-checkpoint';
import { type Consume, type FeedPoller, startFeedPoller } from '../../scripts/local/feed-poller';
import { rangeFrom, readRange, streamArnOf } from '../../shared/feed/stream/read';

// The local server's stream poller on both engines: what it hands over is what Lambda's event
// source mapping would (DynamoDBRecord, images in DynamoDB JSON), each record at least once, in
// commit order per item, a reported failure handed over again from that record, and a checkpoint
// that survives the process.
const TableName = process.env.TABLE_NAME!;
const endpoint = process.env.DYNAMODB_ENDPOINT!;
let client: DynamoDBClient;
const pollers: FeedPoller[] = [];

beforeAll(() => {
  client = adminClient(endpoint);
});
afterAll(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
  client.destroy();
});

type Item = Record<string, AttributeValue>;
const key = (scope: string, id: string): Item => ({ pk: { S: scope }, sk: { S: id } });
const put = (scope: string, id: string, v: number) => client.send(new PutItemCommand({ TableName, Item: { ...key(scope, id), v: { N: String(v) } } }));

/** Waits until `done()` holds, polling; the cap only ends a test that would otherwise hang. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const cap = Date.now() + 20_000;
  while (!(await done())) {
    if (Date.now() > cap) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function start(dataDir: string, consume: Consume): FeedPoller {
  const poller = startFeedPoller({ endpoint, tableName: TableName, dataDir, consume, intervalMs: 20, retryMs: 20 });
  pollers.push(poller);
  return poller;
}

async function stop(poller: FeedPoller): Promise<void> {
  pollers.splice(pollers.indexOf(poller), 1);
  await poller.stop();
}

const scopeOf = (r: DynamoDBRecord) => r.dynamodb!.Keys!.pk.S!;
const label = (r: DynamoDBRecord) => `${r.dynamodb!.Keys!.sk.S}:${r.eventName}:${r.dynamodb!.NewImage?.v?.N ?? '-'}`;

test('hands over every record as Lambda gives it, in commit order, and checkpoints after each batch', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-poller-'));
  const got: DynamoDBRecord[] = [];
  const poller = start(dataDir, async (records) => {
    got.push(...records.filter((r) => scopeOf(r) === 'shape'));
    return { batchItemFailures: [] };
  });
  await put('shape', 'a', 1);
  await client.send(
    new UpdateItemCommand({
      TableName,
      Key: key('shape', 'a'),
      UpdateExpression: 'SET v = :v, b = :b',
      ExpressionAttributeValues: { ':v': { N: '2' }, ':b': { B: Buffer.from('hi') } },
    }),
  );
  await client.send(new DeleteItemCommand({ TableName, Key: key('shape', 'a') }));
  await until(() => got.length === 3, 'three records');
  expect(got.map(label)).toEqual(['a:INSERT:1', 'a:MODIFY:2', 'a:REMOVE:-']);
  const [, modify] = got;
  expect(modify).toMatchObject({
    eventSource: 'aws:dynamodb',
    eventVersion: '1.1',
    eventSourceARN: expect.stringMatching(new RegExp(`:table/${TableName}/stream/`)),
    dynamodb: {
      ApproximateCreationDateTime: expect.any(Number),
      Keys: key('shape', 'a'),
      // DynamoDB JSON, as in Lambda's event: binary as base64.
      NewImage: { ...key('shape', 'a'), v: { N: '2' }, b: { B: Buffer.from('hi').toString('base64') } },
      OldImage: { ...key('shape', 'a'), v: { N: '1' } },
      SequenceNumber: expect.stringMatching(/^\d{21,}$/),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  });
  await stop(poller);
  const kept = JSON.parse(readFileSync(checkpointFile(dataDir), 'utf8'));
  expect(Object.values(kept.shards)).toContain(got[2].dynamodb!.SequenceNumber);
});

test('a new poller on the same checkpoint resumes after it: nothing handled twice, nothing written meanwhile lost', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-poller-'));
  const first: string[] = [];
  let poller = start(dataDir, async (records) => {
    first.push(...records.filter((r) => scopeOf(r) === 'resume').map(label));
    return { batchItemFailures: [] };
  });
  await put('resume', 'r1', 1);
  await until(() => first.length === 1, 'the first record');
  await stop(poller);
  await put('resume', 'r2', 1);
  await put('resume', 'r1', 2);
  const second: string[] = [];
  poller = start(dataDir, async (records) => {
    second.push(...records.filter((r) => scopeOf(r) === 'resume').map(label));
    return { batchItemFailures: [] };
  });
  await put('resume', 'r3', 1);
  await until(() => second.length === 3, 'the records written while stopped');
  expect(first).toEqual(['r1:INSERT:1']);
  expect(second).toEqual(['r2:INSERT:1', 'r1:MODIFY:2', 'r3:INSERT:1']);
  await stop(poller);
});

test('a batch whose answer never came (the process killed in consume) is handed over again by the next poller', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-poller-'));
  let handed = 0;
  let kill: ((error: Error) => void) | undefined;
  // Does not answer while the next poller runs: as a process killed with SIGKILL while the batch is in hand.
  const dead = start(dataDir, (records) => {
    handed += records.filter((r) => scopeOf(r) === 'killed').length;
    return new Promise((_, fail) => (kill = fail));
  });
  await put('killed', 'k1', 1);
  await until(() => handed > 0, 'the batch in hand');
  const again: string[] = [];
  const poller = start(dataDir, async (records) => {
    again.push(...records.filter((r) => scopeOf(r) === 'killed').map(label));
    return { batchItemFailures: [] };
  });
  await until(() => again.length === 1, 'the record handed over again');
  expect(again).toEqual(['k1:INSERT:1']);
  await stop(poller);
  // Only so that the test leaves nothing running: the dead poller's batch fails, and it stops.
  kill!(new Error('killed'));
  await stop(dead);
});

test('against a reference: with failures reported at random, every record is handed over until handled, from the first failed one, in order per item', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.constantFrom('x', 'y', 'z'), fc.boolean()), { minLength: 1, maxLength: 12 }),
      fc.array(fc.nat({ max: 20 }), { maxLength: 6 }),
      async (writes, failAt) => {
        const scope = `model${run++}`;
        const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-poller-'));
        // The reference: each item's version after each write, in write order.
        const version = new Map<string, number>();
        const expected: string[] = [];
        for (const [id, remove] of writes) {
          if (remove && version.has(id)) {
            version.delete(id);
            expected.push(`${id}:REMOVE:-`);
          } else if (!remove) {
            const v = (version.get(id) ?? 0) + 1;
            expected.push(`${id}:${v === 1 ? 'INSERT' : 'MODIFY'}:${v}`);
            version.set(id, v);
          }
        }
        const handled: string[] = [];
        const handedOver: string[] = [];
        let batches = 0;
        const poller = start(dataDir, async (records) => {
          const mine = records.filter((r) => scopeOf(r) === scope);
          handedOver.push(...mine.map(label));
          // Fails the batch's record at a drawn position once per draw; everything before it is handled.
          const at = batches < failAt.length ? failAt[batches] : -1;
          batches++;
          const failed = at >= 0 && at < records.length ? records[at] : undefined;
          const ok = failed ? records.slice(0, at) : records;
          handled.push(...ok.filter((r) => scopeOf(r) === scope).map(label));
          return { batchItemFailures: failed ? [{ itemIdentifier: failed.dynamodb!.SequenceNumber! }] : [] };
        });
        const table = new Map<string, number>();
        for (const [id, remove] of writes) {
          if (remove && table.has(id)) {
            await client.send(new DeleteItemCommand({ TableName, Key: key(scope, id) }));
            table.delete(id);
          } else if (!remove) {
            table.set(id, (table.get(id) ?? 0) + 1);
            await put(scope, id, table.get(id)!);
          }
        }
        await until(() => handled.length >= expected.length, 'every record handled');
        await stop(poller);
        // Handled exactly once each, in commit order; handed over at least once, and again only after a failure.
        expect(handled).toEqual(expected);
        expect(handedOver.length).toBeGreaterThanOrEqual(expected.length);
      },
    ),
    { numRuns: 8 },
  );
}, 120_000);

test('stop (SIGTERM, SIGINT) lets the batch in hand finish and keeps its checkpoint: the next poller does not hand it over again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-poller-'));
  let finish: (() => void) | undefined;
  const first: string[] = [];
  const poller = start(dataDir, async (records) => {
    const mine = records.filter((r) => scopeOf(r) === 'stop');
    if (mine.length > 0) await new Promise<void>((resolve) => (finish = resolve));
    first.push(...mine.map(label));
    return { batchItemFailures: [] };
  });
  await put('stop', 'q1', 1);
  await until(() => finish !== undefined, 'the batch in hand');
  const stopped = stop(poller);
  finish!();
  await stopped;
  expect(first).toEqual(['q1:INSERT:1']);
  const second: string[] = [];
  const next = start(dataDir, async (records) => {
    second.push(...records.filter((r) => scopeOf(r) === 'stop').map(label));
    return { batchItemFailures: [] };
  });
  await put('stop', 'q2', 1);
  await until(() => second.length > 0, 'the next record');
  expect(second).toEqual(['q2:INSERT:1']);
  await stop(next);
});

test('kill -9 of the process polling: after a restart on its checkpoint every record is handled, none skipped, the ones in hand again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-poller-'));
  const handedFile = join(dataDir, 'handed.log');
  const spawnPoller = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../support/poller-process.ts')], {
      env: { ...process.env, RG_ENDPOINT: endpoint, RG_TABLE: TableName, RG_DATA_DIR: dataDir, RG_HANDED: handedFile, RG_CONSUME_MS: '50' },
      stdio: 'ignore',
    });
    return { child, exited: new Promise((done) => child.once('exit', done)) };
  };
  const handed = () =>
    existsSync(handedFile)
      ? readFileSync(handedFile, 'utf8')
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('kill-'))
      : [];
  const ids = Array.from({ length: 60 }, (_, i) => `kill-${String(i).padStart(2, '0')}`);
  let poller = spawnPoller();
  // Written while the first process reads: it is killed with part of them handled and a batch in hand.
  for (const id of ids) await client.send(new PutItemCommand({ TableName, Item: key('kill', id) }));
  await until(() => handed().length >= 15, 'part of the records handed over');
  poller.child.kill('SIGKILL');
  await poller.exited;
  const beforeKill = handed().length;
  poller = spawnPoller();
  try {
    await until(() => new Set(handed().map((l) => l.split(' ')[0])).size === ids.length, 'every record handed over');
  } finally {
    poller.child.kill('SIGKILL');
    await poller.exited;
  }
  const lines = handed();
  // Every record, each first time in commit order; again only what was in hand at the kill.
  const firsts = [...new Map(lines.map((l) => [l.split(' ')[0], l])).keys()];
  expect(firsts).toEqual(ids);
  expect(lines.length - ids.length).toBeLessThanOrEqual(beforeKill);
  const sequences = lines.map((l) => BigInt(l.split(' ')[1]));
  const repeated = sequences.findIndex((s, i) => i > 0 && s <= sequences[i - 1]);
  // A repeat starts only where the second process took over, from the checkpoint on.
  if (repeated >= 0) expect(repeated).toBe(beforeKill);
}, 120_000);

describe('readRange, for a replay from a point in time', () => {
  test('gives every record made since then, in order, shaped as the poller hands them over; none from a time still to come', async () => {
    const since = new Date(Date.now() - 1000);
    await put('since', 's1', 1);
    await put('since', 's1', 2);
    await put('since', 's2', 1);
    const streams = streamsClient(endpoint);
    const arn = await streamArnOf(client, TableName);
    const read = async (from: Date) => {
      const found: DynamoDBRecord[] = [];
      for await (const { records } of readRange(streams, arn, { from: rangeFrom(from), until: Number.MAX_SAFE_INTEGER })) found.push(...records);
      return found;
    };
    let found: DynamoDBRecord[] = [];
    await until(async () => {
      found = await read(since);
      return found.filter((r) => scopeOf(r) === 'since').length === 3;
    }, 'the records');
    expect(found.filter((r) => scopeOf(r) === 'since').map(label)).toEqual(['s1:INSERT:1', 's1:MODIFY:2', 's2:INSERT:1']);
    expect(found[0].eventSourceARN).toBe(arn);
    expect(await read(new Date(Date.now() + 120_000))).toEqual([]);
    // From the start of the minute: a record of the minute before is not given.
    expect((await read(new Date(Date.now() + 60_000))).length).toBe(0);
    streams.destroy();
  });
});
