/**
 * Query after Query against the embedded engine in a process of its own, reading that process's
 * memory as it goes: what the engine keeps per query is the slope of its RSS once warm.
 * dynalite 4.0.0 as published kept every query's LevelDB iterator open (patches/
 * dynalite+4.0.0+005+close-iterators.patch), so its RSS grew by about 30 KB a query.
 */
import { PutItemCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminClient, prepareTable } from '../local/engine';
import type { EngineMemory } from './engine-process';

export interface SoakOptions {
  queries: number;
  /** Samples before this many queries are not counted: allocators and caches settle first. */
  warmUp: number;
  sampleEvery: number;
  /** In memory (as the tests run it) rather than on a data folder (as `npm start` does). */
  inMemory?: boolean;
  log?: (line: string) => void;
}

export interface MemorySample extends EngineMemory {
  queries: number;
}

export interface SoakReport {
  samples: MemorySample[];
  /** The samples from the end of the warm-up on, which the slopes are taken over. */
  settled: MemorySample[];
  /** Least-squares slopes over the settled samples. */
  rssBytesPerQuery: number;
  heapBytesPerQuery: number;
}

/**
 * What a warm engine may keep per query and still count as flat, a fifth of the RSS and a tenth
 * of the heap dynalite as published kept on this workload (29-30 KB and 11 KB a query); patched
 * it keeps under 2 KB of RSS while it warms and nothing afterwards (docs/reliability.md).
 */
export const RETAINED_PER_QUERY = { rss: 6 * 1024, heap: 1024 } as const;

export const isFlat = (report: SoakReport): boolean => report.rssBytesPerQuery <= RETAINED_PER_QUERY.rss && report.heapBytesPerQuery <= RETAINED_PER_QUERY.heap;

const TABLE = 'soak';
const PARTITION = 'note#0';
const INDEX_PARTITION = 'note#user_id#0';
const ITEMS = 50;
const IN_FLIGHT = 4;

/** The shapes the store's reads take: a page that stops early, a read to the end, an index page, a next page. */
const QUERIES: ReadonlyArray<QueryCommandInput> = [
  { TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: PARTITION } }, Limit: 20 },
  { TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: PARTITION } }, Select: 'COUNT' },
  {
    TableName: TABLE,
    IndexName: 'gsi1',
    KeyConditionExpression: 'g1pk = :p',
    ExpressionAttributeValues: { ':p': { S: INDEX_PARTITION } },
    ScanIndexForward: false,
    Limit: 20,
  },
  {
    TableName: TABLE,
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': { S: PARTITION } },
    ExclusiveStartKey: { pk: { S: PARTITION }, sk: { S: itemId(19) } },
    Limit: 20,
  },
];

function itemId(n: number): string {
  return `01SOAK${String(n).padStart(20, '0')}`;
}

export async function runQuerySoak(options: SoakOptions): Promise<SoakReport> {
  const folder = options.inMemory ? undefined : mkdtempSync(join(tmpdir(), 'soak-engine-'));
  const engine = fork(resolve(__dirname, 'engine-process.ts'), folder ? [folder] : [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { endpoint } = await nextMessage<{ endpoint: string }>(engine);
    await prepareTable(endpoint, TABLE);
    const client = adminClient(endpoint);
    try {
      await seed(client);
      const samples: MemorySample[] = [];
      let sent = 0;
      while (sent <= options.queries) {
        const memory = await sample(engine);
        samples.push({ queries: sent, ...memory });
        options.log?.(`${sent} queries: rss ${mb(memory.rss)} MB, heap ${mb(memory.heapUsed)} MB`);
        if (sent === options.queries) break;
        const batch = Math.min(options.sampleEvery, options.queries - sent);
        await queryTimes(client, sent, batch);
        sent += batch;
      }
      const settled = samples.filter((s) => s.queries >= options.warmUp);
      return {
        samples,
        settled,
        rssBytesPerQuery: slope(settled.map((s) => [s.queries, s.rss])),
        heapBytesPerQuery: slope(settled.map((s) => [s.queries, s.heapUsed])),
      };
    } finally {
      client.destroy();
    }
  } finally {
    await stop(engine);
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

async function seed(client: ReturnType<typeof adminClient>): Promise<void> {
  for (let n = 0; n < ITEMS; n++) {
    const id = itemId(n);
    await client.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: {
          pk: { S: PARTITION },
          sk: { S: id },
          id: { S: id },
          g1pk: { S: INDEX_PARTITION },
          g1sk: { S: `"user-${n % 7}\u0000${id}` },
          d: { M: { title: { S: `note ${n} `.repeat(20) }, user_id: { S: `user-${n % 7}` }, tags: { L: [{ S: 'a' }, { S: 'b' }] } } },
          _version: { N: '1' },
        },
      }),
    );
  }
}

/** `count` queries, `IN_FLIGHT` at a time, cycling through the shapes from `offset`. */
async function queryTimes(client: ReturnType<typeof adminClient>, offset: number, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const shape = QUERIES[(offset + next++) % QUERIES.length];
      await client.send(new QueryCommand(shape));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

function sample(engine: ChildProcess): Promise<EngineMemory> {
  const answer = nextMessage<EngineMemory>(engine);
  engine.send('sample');
  return answer;
}

function nextMessage<T>(engine: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the engine process exited (${code})`));
    engine.once('exit', exited);
    engine.once('message', (message) => {
      engine.off('exit', exited);
      resolve(message as T);
    });
  });
}

function stop(engine: ChildProcess): Promise<void> {
  if (engine.exitCode !== null || engine.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    engine.once('exit', () => resolve());
    engine.kill();
  });
}

/** Least-squares slope of y over x. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return covariance / variance;
}

export const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
