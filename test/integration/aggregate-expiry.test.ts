import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { type RecordState, applyRecordState } from '../../shared/aggregates/apply';
import { backfillAggregates } from '../../shared/aggregates/backfill';
import { expireAggregates } from '../../shared/aggregates/expire';
import { COUNT_ATTRIBUTE, sumAttribute } from '../../shared/aggregates/items';
import { ONLY_GROUP, groupKey } from '../../shared/aggregates/keys';
import { markerPartition } from '../../shared/aggregates/markers';
import { isExactNumber, numberText } from '../../shared/json/exact-json';
import type { Model } from '../../shared/models/define';
import { db } from '../../shared/store/client';
import { epochSeconds, expiryAttributes } from '../../shared/store/expiry/ttl';
import { itemKey } from '../../shared/store/keys';
import { recordLayout } from '../../shared/store/layout/index-build';
import { CREATED_ATTRIBUTE, DATA_ATTRIBUTE, TABLE_KEY, UPDATED_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../shared/store/table';
import { counterItems } from '../support/aggregate-counters';
import { useClock } from '../support/clock';
import { leaseTallyModel } from '../support/models';

/*
 * Aggregates of records that expire (docs/record-api.md "Aggregates: how exact"), both engines:
 * applyRecordState keeps an expiry marker per counted record with a ttl, and expireAggregates
 * takes each record out of its groups once its ttl is at or before now, before any delete; the
 * delete, when the stream hands it over later, subtracts nothing again. The clock is moved
 * (test/support/clock.ts) in steps of 100 s against ttls 50 s off the step, so the real
 * seconds a run takes never decide an expiry.
 */

const clock = useClock();
const STEP = 100;

let models = 0;
/** A fresh model (its own counters and markers): counted and `n` summed by `holder`, and counted over all; `until` is the ttl. */
const expiringModel = (name = `agx_${++models}`, options?: { aggregated: boolean }) => leaseTallyModel(name, options);

interface Data {
  holder: string;
  until?: number;
  n?: number;
}

const createdAt = (life: number) => new Date(Date.UTC(2026, 10, 27, 10, 0, 0, life)).toISOString();
const state = (model: Model, id: string, life: number, version: number, data?: Data): RecordState => ({
  id,
  sortKey: itemKey(model, id, '')[TABLE_KEY.sortKey],
  createdAt: createdAt(life),
  version,
  ...(data === undefined ? {} : { data: { ...data }, ...(data.until === undefined ? {} : { ttl: data.until }) }),
});
const applyAll = (model: Model, s: RecordState) => Promise.all(Object.keys(model.aggregates).map((name) => applyRecordState(model, name, s)));

/** Each group's count and `n` sum as stored, groups with records only (an emptied group keeps count 0 and sum 0). */
async function stored(model: Model): Promise<{ by_holder: Record<string, { count: number; n: number }>; all: number }> {
  const by_holder: Record<string, { count: number; n: number }> = {};
  for (const item of await counterItems(db(), process.env.TABLE_NAME!, model, 'by_holder')) {
    const sum = item[sumAttribute('n')];
    const counter = { count: Number(item[COUNT_ATTRIBUTE] ?? 0), n: isExactNumber(sum) ? Number(numberText(sum)) : 0 };
    if (counter.count === 0) expect(counter.n).toBe(0);
    else by_holder[item[TABLE_KEY.sortKey] as string] = counter;
  }
  const all = await counterItems(db(), process.env.TABLE_NAME!, model, 'all');
  expect(all.every((item) => item[TABLE_KEY.sortKey] === ONLY_GROUP)).toBe(true);
  return { by_holder, all: Number(all[0]?.[COUNT_ATTRIBUTE] ?? 0) };
}

/** The recount: the records live and not expired at `now`. */
function recount(records: Iterable<Data | undefined>, now: number) {
  const by_holder: Record<string, { count: number; n: number }> = {};
  let all = 0;
  for (const data of records) {
    if (!data || (data.until !== undefined && data.until <= now)) continue;
    const key = groupKey([data.holder]);
    by_holder[key] ??= { count: 0, n: 0 };
    const group = by_holder[key];
    group.count += 1;
    group.n += data.n ?? 0;
    all += 1;
  }
  return { by_holder, all };
}

/** Every expiry marker of a model, of every aggregate and shard. */
async function markers(model: Model): Promise<number> {
  let found = 0;
  for (const aggregate of Object.keys(model.aggregates))
    for (let shard = 0; shard < model.shards; shard++) {
      const page = await db().send(
        new QueryCommand({
          TableName: process.env.TABLE_NAME!,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
          ExpressionAttributeValues: { ':pk': markerPartition(model, aggregate, shard) },
          ConsistentRead: true,
        }),
      );
      found += page.Items?.length ?? 0;
    }
  return found;
}

/** A ttl `steps` clock steps from now, 50 s off the step. */
const ttlIn = (steps: number) => epochSeconds() + steps * STEP - STEP / 2;

test('the expiry pass takes records out of their groups once expired, not when deleted; their later delete subtracts nothing again', async () => {
  const model = expiringModel();
  const r1 = state(model, 'r1', 1, 1, { holder: 'a', until: ttlIn(1), n: 5 });
  const r2 = state(model, 'r2', 1, 1, { holder: 'a', until: ttlIn(3), n: 7 });
  const r3 = state(model, 'r3', 1, 1, { holder: 'b', n: 1 });
  for (const s of [r1, r2, r3]) await applyAll(model, s);
  expect(await markers(model)).toBe(4);
  expect((await stored(model)).all).toBe(3);

  // Nothing due yet: the pass changes nothing.
  expect(await expireAggregates(model)).toEqual({ removed: 0, done: true });
  clock.advance(STEP * 1000);
  expect(await expireAggregates(model)).toEqual({ removed: 2, done: true });
  expect(await stored(model)).toEqual({ by_holder: { [groupKey(['a'])]: { count: 1, n: 7 }, [groupKey(['b'])]: { count: 1, n: 1 } }, all: 2 });
  expect(await markers(model)).toBe(2);

  // The stream's delete of r1 (DynamoDB's TTL, days later), and r1's create handed over again: both stale.
  const deleted = state(model, 'r1', 1, 1);
  expect(await applyAll(model, deleted)).toEqual(['stale', 'stale']);
  expect(await applyAll(model, r1)).toEqual(['stale', 'stale']);
  expect(await expireAggregates(model)).toEqual({ removed: 0, done: true });
  expect((await stored(model)).all).toBe(2);
});

test('an update that moves the ttl before the pass is honoured; one that moves it into the past takes the record out at once', async () => {
  const model = expiringModel();
  await applyAll(model, state(model, 'r1', 1, 1, { holder: 'a', until: ttlIn(1) }));
  await applyAll(model, state(model, 'r1', 1, 2, { holder: 'a', until: ttlIn(5) }));
  // Same ttl, another field: the marker names the newer state, so the pass applies its removal, not a stale one.
  await applyAll(model, state(model, 'r2', 1, 1, { holder: 'b', until: ttlIn(2), n: 1 }));
  await applyAll(model, state(model, 'r2', 1, 2, { holder: 'b', until: ttlIn(2), n: 3 }));
  expect(await markers(model)).toBe(4);
  clock.advance(STEP * 1000);
  expect(await expireAggregates(model)).toEqual({ removed: 0, done: true });
  expect((await stored(model)).all).toBe(2);
  clock.advance(STEP * 1000);
  expect(await expireAggregates(model)).toEqual({ removed: 2, done: true });
  expect(await stored(model)).toEqual({ by_holder: { [groupKey(['a'])]: { count: 1, n: 0 } }, all: 1 });

  // The stream hands over an update that made r1 expire (no subscriber is told it): out at once, its marker gone.
  await applyAll(model, state(model, 'r1', 1, 3, { holder: 'a', until: epochSeconds() - STEP }));
  expect(await stored(model)).toEqual({ by_holder: {}, all: 0 });
  expect(await markers(model)).toBe(0);
});

test('the pass stops after its budget, and the next one goes on', async () => {
  const model = expiringModel();
  for (let i = 0; i < 5; i++) await applyAll(model, state(model, `r${i}`, 1, 1, { holder: 'a', until: ttlIn(1) }));
  clock.advance(STEP * 1000);
  expect(await expireAggregates(model, epochSeconds(), 3)).toEqual({ removed: 3, done: false });
  expect(await expireAggregates(model)).toEqual({ removed: 7, done: true });
  expect(await stored(model)).toEqual({ by_holder: {}, all: 0 });
});

test('the backfill counts no expired record, and gives each counted one its marker', async () => {
  // Records stored before the model declared aggregates (as a restart with an edited model file), written as the store writes them, with their `_ttl`.
  const before = expiringModel(`agx_${++models}`, { aggregated: false });
  await recordLayout(before);
  const put = (id: string, data: Data) =>
    db().send(
      new PutCommand({
        TableName: process.env.TABLE_NAME!,
        Item: {
          ...itemKey(before, id, ''),
          id,
          [DATA_ATTRIBUTE]: data,
          [CREATED_ATTRIBUTE]: createdAt(1),
          [UPDATED_ATTRIBUTE]: createdAt(1),
          [VERSION_ATTRIBUTE]: 1,
          ...expiryAttributes(before, { ...data }),
        },
      }),
    );
  await put('gone', { holder: 'a', until: epochSeconds() - STEP });
  await put('soon', { holder: 'a', until: ttlIn(1) });
  await put('kept', { holder: 'a' });
  const model = expiringModel(before.name);
  const { layout } = await backfillAggregates(model);
  expect(Object.values(layout.aggregates ?? {}).map((a) => a.state)).toEqual(['ready', 'ready']);
  expect((await stored(model)).all).toBe(2);
  expect(await markers(model)).toBe(2);
  clock.advance(STEP * 1000);
  await expireAggregates(model);
  expect(await stored(model)).toEqual({ by_holder: { [groupKey(['a'])]: { count: 1, n: 0 } }, all: 1 });
});

test('random creates, updates that move ttls, deletes, redeliveries and clock moves: after each pass the counters equal a recount of the records not expired', async () => {
  const ids = ['p', 'q', 'r'];
  const command = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('write' as const),
        id: fc.constantFrom(...ids),
        holder: fc.constantFrom('a', 'b'),
        until: fc.option(fc.constantFrom(-1, 1, 1, 2), { nil: undefined, freq: 4 }),
        n: fc.integer({ min: 0, max: 9 }),
      }),
    },
    fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...ids) }),
    fc.record({ kind: fc.constant('redeliver' as const), id: fc.constantFrom(...ids), back: fc.nat(4) }),
    fc.record({ kind: fc.constant('advance' as const), steps: fc.integer({ min: 1, max: 2 }) }),
    fc.constant({ kind: 'pass' as const }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
      const model = expiringModel();
      let lives = 0;
      /** Each record's current data (undefined: deleted), and every state handed over for it, in commit order. */
      const current = new Map<string, Data | undefined>();
      const history = new Map<string, RecordState[]>();
      const life = new Map<string, { life: number; version: number }>();
      const deliver = async (id: string, s: RecordState) => {
        history.set(id, [...(history.get(id) ?? []), s]);
        await applyAll(model, s);
      };
      const pass = async () => {
        await expireAggregates(model);
        expect(await stored(model)).toEqual(recount(current.values(), epochSeconds()));
      };
      for (const c of commands) {
        if (c.kind === 'advance') clock.advance(c.steps * STEP * 1000);
        else if (c.kind === 'pass') await pass();
        else if (c.kind === 'redeliver') {
          const states = history.get(c.id) ?? [];
          // The stream hands an item's changes over again from an earlier one, and every one after it.
          for (const s of states.slice(Math.max(0, states.length - 1 - c.back))) await applyAll(model, s);
        } else {
          const data = current.get(c.id);
          const reachable = data !== undefined && !(data.until !== undefined && data.until <= epochSeconds());
          const at = life.get(c.id);
          if (c.kind === 'delete') {
            if (!reachable || !at) continue;
            current.set(c.id, undefined);
            await deliver(c.id, state(model, c.id, at.life, at.version));
          } else {
            // No request reaches an expired record: a write to its id makes a new one.
            const next = reachable && at ? { life: at.life, version: at.version + 1 } : { life: ++lives, version: 1 };
            life.set(c.id, next);
            const written: Data = { holder: c.holder, n: c.n, ...(c.until === undefined ? {} : { until: ttlIn(c.until) }) };
            current.set(c.id, written);
            await deliver(c.id, state(model, c.id, next.life, next.version, written));
          }
        }
      }
      await pass();
    }),
    {
      numRuns: 60,
      examples: [
        [
          [
            { kind: 'write', id: 'p', holder: 'a', until: 1, n: 1 },
            { kind: 'write', id: 'p', holder: 'a', until: 1, n: 2 },
            { kind: 'advance', steps: 1 },
            { kind: 'pass' },
          ],
        ],
      ],
    },
  );
});

test('passes running while the feed applies updates that move ttls and deletes: each record ends counted as its last state says', async () => {
  const model = expiringModel();
  const ids = Array.from({ length: 40 }, (_, i) => `r${i}`);
  const firsts = ids.map((_, i): Data => ({ holder: i % 2 ? 'a' : 'b', until: ttlIn(1), n: i }));
  const first = (i: number) => firsts[i];
  for (const [i, id] of ids.entries()) await applyAll(model, state(model, id, 1, 1, first(i)));
  clock.advance(STEP * 1000);
  // Every record is due now; a third moves its ttl ahead, a third is deleted, the rest are left to the passes.
  const last = new Map<string, Data | undefined>(ids.map((id, i) => [id, first(i)]));
  const feed = Promise.all(
    ids.map(async (id, i) => {
      if (i % 3 === 0) {
        const moved = { ...first(i), until: ttlIn(2) };
        last.set(id, moved);
        await applyAll(model, state(model, id, 1, 2, moved));
      } else if (i % 3 === 1) {
        last.set(id, undefined);
        await applyAll(model, state(model, id, 1, 2));
      }
    }),
  );
  const passes = Promise.all([expireAggregates(model), expireAggregates(model), expireAggregates(model)]);
  await Promise.all([feed, passes]);
  await expireAggregates(model);
  expect(await stored(model)).toEqual(recount(last.values(), epochSeconds()));
  expect(await markers(model)).toBe(2 * Math.ceil(ids.length / 3));
});
