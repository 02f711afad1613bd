import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { settings } from '../../shared/config';
import type { Change } from '../../shared/feed/change';
import { checkSubscriptions, matches } from '../../shared/feed/check-subscriptions';
import { changeOf } from '../../shared/feed/from-stream';
import type { Delivery } from '../../shared/feed/queue';
import { replayRange } from '../../shared/feed/replay';
import { decodeReplayCursor, encodeReplayCursor, type ReplayCursor } from '../../shared/feed/replay-cursor';
import { streams } from '../../shared/feed/stream/client';
import { readRange, type StreamPosition, type StreamRange, streamArnOf } from '../../shared/feed/stream/read';
import { reaction } from '../../shared/models/reaction';
import { tableClient } from '../../shared/store/client';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { useSteerableProxy } from '../support/steerable-proxy';
import { streamSoFar } from '../support/stream-records';

// A replay of a range of the stream (shared/feed/replay.ts replayRange over
// shared/feed/stream/read.ts readRange) stopped part way, by its time running out between pages
// or by the engine going away under it (test/support/steerable-proxy.ts refusing the link), and
// gone on with: from its cursor when it answered one, or with the last request again when it
// failed. Whatever the pages, stops and faults, what was queued in all is every change of the
// range the subscription matches, at least once, first in commit order per record, and nothing
// outside the range: against the reference, the table's own stream filtered by the range.
const proxy = useSteerableProxy();
const api = useApi();

const ROUNDS = 3;
let stream: DynamoDBRecord[] = [];
let arn = '';
const subscriptionText = JSON.stringify([
  { name: 'range', models: ['reaction'], filter: { content: 'heart' }, url: 'http://127.0.0.1:9/hook', secret: `whsec_${'A'.repeat(32)}` },
]);

beforeAll(async () => {
  await recordLayout(reaction);
  // Rounds a second apart, so that the stream's times (to the second on dynalite) differ and
  // ranges cut through them; DynamoDB Local stamps to the minute, where a range holds all or none.
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) await sleep(1_100);
    for (const [i, content] of ['heart', 'rocket', 'heart', 'heart'].entries()) {
      const id = `r${i}`;
      const reply =
        round === 0
          ? await api.post('/api/db/reaction/create', { id, data: { user_id: round, content } })
          : await api.post('/api/db/reaction/update', { filters: { id }, values: { user_id: round, content: round === 1 && i === 0 ? 'rocket' : content } });
      expect(reply.status).toBeLessThan(300);
    }
  }
  stream = await streamSoFar();
  arn = await streamArnOf(tableClient(), settings().TABLE_NAME);
});

const stampOf = (r: DynamoDBRecord) => r.dynamodb!.ApproximateCreationDateTime!;

/** The reference: the changes of the range the subscription matches, in stream order. */
async function expected(range: StreamRange): Promise<Change[]> {
  const [subscription] = await checkSubscriptions(subscriptionText);
  const inRange = stream.filter((r) => stampOf(r) >= range.from && stampOf(r) <= range.until);
  return (await Promise.all(inRange.map(changeOf))).filter((c): c is Change => c !== undefined && matches(subscription, c));
}

/** The pages of a read, the link to the engine refused after the `faultAfter`-th. */
async function* failingAfter<T>(pages: AsyncIterable<T>, faultAfter: number | undefined): AsyncGenerator<T> {
  let n = 0;
  for await (const page of pages) {
    yield page;
    if (++n === faultAfter) await proxy.set('refuse');
  }
}

test('a replay stopped by its time or by a fault, and gone on with, queues every matching change of its range at least once and nothing outside it', async () => {
  const [subscription] = await checkSubscriptions(subscriptionText);
  const stamps = [...new Set(stream.map(stampOf))].sort((a, b) => a - b);
  const bound = fc.constantFrom(...stamps.flatMap((s) => [s - 1, s, s + 1]));
  await fc.assert(
    fc.asyncProperty(
      fc.tuple(bound, bound).map(([a, b]) => ({ from: Math.min(a, b), until: Math.max(a, b) })),
      fc.integer({ min: 1, max: 4 }),
      // Per call: whether the time runs out before each page after its first, and after which page the engine goes away.
      fc.array(fc.record({ goOn: fc.array(fc.boolean(), { maxLength: 6 }), faultAfter: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }), {
        maxLength: 8,
      }),
      async (range, limit, calls) => {
        const queued: Delivery[] = [];
        const queue = { send: async (deliveries: ReadonlyArray<Delivery>) => void queued.push(...deliveries) };
        let cursor: ReplayCursor = { subscription: 'range', range, position: { done: [] } };
        let finished = false;
        for (let call = 0; !finished; call++) {
          if (call > 200) throw new Error('the replay never finished');
          const { goOn = [], faultAfter = undefined } = calls[call] ?? {};
          let asked = 0;
          const mayGoOn = () => goOn[asked++] ?? true;
          let stoppedAt: StreamPosition | undefined;
          try {
            ({ stoppedAt } = await replayRange(
              subscription,
              failingAfter(readRange(streams(), arn, cursor.range, cursor.position, limit), faultAfter),
              queue,
              mayGoOn,
            ));
          } catch {
            // The request failed: the caller sends the last one again.
            await proxy.set('pass');
            continue;
          }
          await proxy.set('pass');
          finished = stoppedAt === undefined;
          // As the route answers it and takes it back.
          if (stoppedAt) cursor = decodeReplayCursor(encodeReplayCursor({ ...cursor, position: stoppedAt }))!;
        }
        const want = await expected(range);
        const got = queued.map((d) => d.change);
        // Nothing outside the range, every change of it.
        expect(new Set(got.map((c) => c.change_id))).toEqual(new Set(want.map((c) => c.change_id)));
        // First time each, in commit order per record; and as the stream told it.
        const firsts = [...new Map(got.map((c) => [c.change_id, c])).values()];
        for (const id of new Set(want.map((c) => c.id)))
          expect(firsts.filter((c) => c.id === id).map((c) => c.change_id)).toEqual(want.filter((c) => c.id === id).map((c) => c.change_id));
        for (const change of got) expect(change).toEqual(want.find((c) => c.change_id === change.change_id));
      },
    ),
    { numRuns: 25 },
  );
}, 180_000);
