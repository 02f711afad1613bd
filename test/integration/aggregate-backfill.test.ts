import type { Context } from 'aws-lambda';
import * as fc from 'fast-check';
import * as z from 'zod';
import { addDecimal } from '../../shared/json/decimal';
import { numberText } from '../../shared/json/exact-json';
import { defineModel, type Model } from '../../shared/models/define';
import { consumeStream } from '../../shared/feed/consume';
import { useApi } from '../support/api';
import { spyOnLog } from '../support/log';
import { streamSoFar } from '../support/stream-records';

// Issue 35: an aggregate declared on a model that holds records is built online. The model is
// swapped in the catalog as a restart with an edited model file would (test/integration/model-changes.test.ts):
// records first, then a definition that declares aggregates. Until the backfill has counted every
// stored record, `aggregate` answers 503 aggregate_building and `count` reads. Writes go on
// meanwhile, and the change feed's consumer (shared/feed/consume.ts, run here on the table's real
// stream) applies each change committed since the aggregates were declared, as the deployed one
// does; after the backfill, every group equals a recount of the records, through the route's filters and pages.
const schema = z.strictObject({ content: z.string(), user: z.string(), score: z.number() });
const base = { name: 'tally', description: 'records counted by an aggregate declared after them', schema, shards: 3 } as const;
const V1 = defineModel(base);
const AGGREGATES = {
  by_content: { group_by: ['content'], count: true, sum: ['score'] },
  by_pair: { group_by: ['content', 'user'], count: true },
  by_user_sum: { group_by: ['user'], sum: ['score'] },
  total: { group_by: [], count: true, sum: ['score'] },
} as const;
const V2 = defineModel({ ...base, aggregates: AGGREGATES });
type Definition = { group_by: ReadonlyArray<string>; count?: boolean; sum?: ReadonlyArray<string> };

const mockCurrent: Record<string, Model> = { tally: V1 };
jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return { MODEL_NAMES: [...actual.MODEL_NAMES, 'tally'], findModel: (name: string) => mockCurrent[name] ?? actual.findModel(name) };
});

const api = useApi();
const post = (op: string, body: unknown) => api.post(`/api/db/tally/${op}`, body);
const backfill = (options?: { budget?: number }) =>
  (require('../../shared/aggregates/backfill') as typeof import('../../shared/aggregates/backfill')).backfillAggregates(V2, options);

type Data = { content: string; user: string; score: number };
// Few groups, so groups hold several records; scores with decimals, whose sums must be exact.
const dataArb = fc.record({
  content: fc.constantFrom('+1', 'heart', 'rocket', 'a\u0000b', 'x'.repeat(300)),
  user: fc.constantFrom('ann', 'bob', 'cy'),
  score: fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constantFrom(0.1, 0.2, 1e-7, 12345678901.5)),
});
const RECORDS: Data[] = fc.sample(dataArb, { numRuns: 130, seed: 35 });

/** Every record as the API lists it now. */
async function everyRecord(): Promise<Data[]> {
  const records: Data[] = [];
  let cursor: string | undefined;
  do {
    const page = await post('list', { limit: 1000, ...(cursor ? { cursor } : {}) });
    expect(page.status).toBe(200);
    records.push(...page.body.data.items);
    cursor = page.body.data.next_cursor ?? undefined;
  } while (cursor);
  return records;
}

/** The groups a recount of `records` gives, in no particular order, as the route answers each. */
function recount(definition: Definition, records: ReadonlyArray<Data>): unknown[] {
  const groups = new Map<string, { key: Record<string, unknown>; count: number; sum: Record<string, string> }>();
  for (const record of records) {
    const key = Object.fromEntries(definition.group_by.map((field) => [field, record[field as keyof Data]]));
    const name = JSON.stringify(key);
    const group = groups.get(name) ?? { key, count: 0, sum: Object.fromEntries((definition.sum ?? []).map((f) => [f, '0'])) };
    group.count += 1;
    for (const field of definition.sum ?? []) group.sum[field] = addDecimal(group.sum[field], numberText(record[field as keyof Data] as number));
    groups.set(name, group);
  }
  return [...groups.values()].map(({ key, count, sum }) => ({
    key,
    ...(definition.count ? { count } : {}),
    ...(definition.sum ? { sum } : {}),
  }));
}

/** Every group of an aggregate through the route, `limit` a page, sums as exact number text. */
async function groupsOf(name: string, filters?: Record<string, unknown>, limit = 2): Promise<unknown[]> {
  const groups: Array<{ key: Record<string, unknown>; count?: number; sum?: Record<string, unknown> }> = [];
  let cursor: string | undefined;
  do {
    const page = await post('aggregate', { name, limit, ...(filters ? { filters } : {}), ...(cursor ? { cursor } : {}) });
    expect(page.status).toBe(200);
    groups.push(...page.body.data.groups);
    cursor = page.body.data.next_cursor ?? undefined;
  } while (cursor);
  return groups.map((g) => ({
    ...g,
    ...(g.sum ? { sum: Object.fromEntries(Object.entries(g.sum).map(([f, v]) => [f, addDecimal(numberText(v as number), '0')])) } : {}),
  }));
}

/** Stream records before this index were consumed before the aggregates were declared: by code that did not keep them. */
let consumed = 0;
/**
 * The feed's consumer over every change committed since it last ran; a batch it fails part way
 * is handed over again from its first failure, as Lambda's event source mapping does.
 */
async function consumeFeed(): Promise<void> {
  const records = await streamSoFar();
  for (let attempt = 0; consumed < records.length; attempt++) {
    const failures = spyOnLog('error');
    const { batchItemFailures } = await consumeStream(records.slice(consumed), { subscriptions: [], queue: { send: async () => undefined } });
    const said = failures.mock.calls.map(([line]) => String(line));
    failures.mockRestore();
    if (batchItemFailures.length === 0) consumed = records.length;
    else {
      if (attempt >= 10) throw new Error(`the consumer kept failing: ${said.join('\n')}`);
      consumed = records.findIndex((r) => r.dynamodb?.SequenceNumber === batchItemFailures[0].itemIdentifier);
    }
  }
}

/**
 * Random writes through the API, the feed's consumer running after every few: creates, updates
 * that move a record to another group, deletes, and bulk updates that move many.
 */
async function writeWhileBuilding(seed: number): Promise<void> {
  const ops = fc.sample(
    fc.oneof(
      fc.record({ op: fc.constant('create' as const), data: dataArb }),
      fc.record({
        op: fc.constant('update' as const),
        pick: fc.nat(),
        values: fc.record({ content: dataArb.map((d) => d.content), score: dataArb.map((d) => d.score) }, { requiredKeys: ['content'] }),
      }),
      fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('bulk' as const), user: dataArb.map((d) => d.user), content: dataArb.map((d) => d.content) }),
    ),
    { numRuns: 20, seed },
  );
  for (const [i, step] of ops.entries()) {
    const ids = (await post('list', { limit: 1000, fields: ['id'] })).body.data.items.map((r: { id: string }) => r.id) as string[];
    const id = 'pick' in step ? ids[step.pick % ids.length] : '';
    const reply =
      step.op === 'create'
        ? await post('create', { data: step.data })
        : step.op === 'update'
          ? await post('update', { filters: { id }, values: step.values })
          : step.op === 'delete'
            ? await post('delete', { filters: { id } })
            : await post('update', { filters: { user: step.user }, values: { content: step.content }, allow_all: true });
    expect({ step, status: reply.status }).toEqual({ step, status: step.op === 'create' ? 201 : 200 });
    if (i % 10 === 9) await consumeFeed();
  }
  await consumeFeed();
}

const sorted = (groups: unknown[]) => [...groups].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

beforeAll(async () => {
  for (let i = 0; i < RECORDS.length; i += 100) expect((await post('create', { data: RECORDS.slice(i, i + 100) })).status).toBe(201);
  // The first definition's layout is recorded, as a deploy or npm start records it before the aggregates are declared.
  await (require('../../shared/store/layout/index-build') as typeof import('../../shared/store/layout/index-build')).recordLayout(V1);
  consumed = (await streamSoFar()).length;
  mockCurrent.tally = V2;
});

test('while the backfill has records to count, aggregate answers 503 aggregate_building with its progress, and count reads the records', async () => {
  const refused = await post('aggregate', { name: 'by_content' });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.body.data).toMatchObject({ error: 'aggregate_building', model: 'tally', aggregate: 'by_content', progress: { records_done: 0, shards: 3 } });
  const counted = await post('count', { filters: { content: 'heart' } });
  expect(counted.body.data).toEqual({ count: RECORDS.filter((r) => r.content === 'heart').length, scanned: expect.any(Number) });
  expect(counted.body.data.scanned).toBeGreaterThan(2);
  const models = (await api.get('/api/db/models')).body.data.models as Array<{ name: string; aggregates: unknown }>;
  expect(models.find((m) => m.name === 'tally')!.aggregates).toEqual([
    { name: 'by_content', group_by: ['content'], count: true, sum: ['score'], state: 'building', progress: { records_done: 0, shard: 0, shards: 3 } },
    { name: 'by_pair', group_by: ['content', 'user'], count: true, sum: [], state: 'building', progress: { records_done: 0, shard: 0, shards: 3 } },
    { name: 'by_user_sum', group_by: ['user'], count: false, sum: ['score'], state: 'building', progress: { records_done: 0, shard: 0, shards: 3 } },
    { name: 'total', group_by: [], count: true, sum: ['score'], state: 'building', progress: { records_done: 0, shard: 0, shards: 3 } },
  ]);
});

test('writes go on during a backfill stopped part way and resumed; when done, every group equals a recount', async () => {
  await writeWhileBuilding(1);
  const part = await backfill({ budget: 17 });
  expect(part.applied).toBe(17);
  const during = await post('aggregate', { name: 'by_content' });
  expect(during.body.data).toMatchObject({ error: 'aggregate_building', progress: { records_done: 17 } });

  // The rest by the scheduled run (functions/index_build), as in AWS, beside a second run (npm
  // start's, say: two at once are harmless) while writes go on.
  const { handler } = require('../../functions/index_build/handler') as typeof import('../../functions/index_build/handler');
  await Promise.all([handler({}, { awsRequestId: 'scheduled-build', getRemainingTimeInMillis: () => 120_000 } as Context), backfill(), writeWhileBuilding(2)]);
  await writeWhileBuilding(3);

  const records = await everyRecord();
  for (const [name, definition] of Object.entries(AGGREGATES)) expect(sorted(await groupsOf(name))).toEqual(sorted(recount(definition, records)));
  const models = (await api.get('/api/db/models')).body.data.models as Array<{ name: string; aggregates: Array<{ state: string }> }>;
  expect(models.find((m) => m.name === 'tally')!.aggregates.map((a) => a.state)).toEqual(['ready', 'ready', 'ready', 'ready']);
}, 300_000);

test('filters: equality on a leading group field, on a later one, on both; a page of one group at a time', async () => {
  const records = await everyRecord();
  const pair = AGGREGATES.by_pair;
  for (const filters of [
    { content: 'heart' },
    { user: 'bob' },
    { content: { $eq: 'rocket' }, user: 'ann' },
    { content: 'x'.repeat(300) },
    { content: 'none' },
  ]) {
    const matching = records.filter((r) => Object.entries(filters).every(([f, v]) => r[f as keyof Data] === (typeof v === 'object' ? v.$eq : v)));
    expect(sorted(await groupsOf('by_pair', filters, 1))).toEqual(sorted(recount(pair, matching)));
  }
});

test('count of exactly one declared group reads one counter; any other filter reads the records', async () => {
  const records = await everyRecord();
  const heart = records.filter((r) => r.content === 'heart').length;
  expect((await post('count', { filters: { content: 'heart' } })).body.data).toEqual({ count: heart, scanned: 1, aggregate: 'by_content' });
  const annHeart = records.filter((r) => r.content === 'heart' && r.user === 'ann').length;
  expect((await post('count', { filters: { user: 'ann', content: { $eq: 'heart' } } })).body.data).toEqual({
    count: annHeart,
    scanned: 1,
    aggregate: 'by_pair',
  });
  expect((await post('count', {})).body.data).toEqual({ count: records.length, scanned: 1, aggregate: 'total' });
  // A group no record is in: no counter, nothing read.
  expect((await post('count', { filters: { content: 'none' } })).body.data).toEqual({ count: 0, scanned: 0, aggregate: 'by_content' });
  // by_user_sum does not count: a count by user reads.
  const byUser = await post('count', { filters: { user: 'cy' } });
  expect(byUser.body.data).toEqual({ count: records.filter((r) => r.user === 'cy').length, scanned: records.length });
  // A consistent count is the records' own.
  expect((await post('count', { filters: { content: 'heart' }, consistent: true })).body.data).toEqual({ count: heart, scanned: records.length });
  expect((await post('count', { filters: { content: { $in: ['heart'] } } })).body.data.aggregate).toBeUndefined();
});

test('a name it does not declare, a field it does not group by, or other than equality: 422 naming the path; a malformed filter as for records', async () => {
  const unknown = await post('aggregate', { name: 'nope' });
  expect(unknown.status).toBe(422);
  expect(unknown.body.data).toMatchObject({
    error: 'validation_error',
    path: 'name',
    available: ['by_content', 'by_pair', 'by_user_sum', 'total'],
    details: [{ path: 'name' }],
  });
  const other = await post('aggregate', { name: 'by_content', filters: { user: 'ann' } });
  expect(other.status).toBe(422);
  expect(other.body.data).toMatchObject({ error: 'validation_error', path: 'filters.user', group_by: ['content'], details: [{ path: 'filters.user' }] });
  const range = await post('aggregate', { name: 'by_content', filters: { content: { $gt: 'a' } } });
  expect(range.status).toBe(422);
  expect(range.body.data).toMatchObject({ error: 'validation_error', details: [{ path: 'filters.content' }] });
  expect((await post('aggregate', { name: 'by_content', filters: { nope: 1 } })).body.data).toMatchObject({ error: 'unknown_field' });
  expect((await post('aggregate', { name: 'by_content', extra: 1 })).status).toBe(400);
  const foreign = await post('aggregate', { name: 'by_pair', cursor: (await post('aggregate', { name: 'by_content', limit: 1 })).body.data.next_cursor });
  expect(foreign.body.data).toMatchObject({ error: 'invalid_cursor' });
});

test('an aggregate removed and declared again, or declared anew with another definition, is refused, not answered from counters that missed changes', async () => {
  mockCurrent.tally = defineModel({ ...base, aggregates: { by_content: AGGREGATES.by_content } });
  await (require('../../shared/store/layout/index-build') as typeof import('../../shared/store/layout/index-build')).recordLayout(mockCurrent.tally);
  const changed = defineModel({ ...base, aggregates: { by_content: { group_by: ['content'], count: true }, total: AGGREGATES.total } });
  mockCurrent.tally = changed;
  for (const name of ['by_content', 'total']) {
    const refused = await post('aggregate', { name });
    expect(refused.status).toBe(500);
    expect(refused.body.data).toMatchObject({ error: 'model_layout_mismatch', model: 'tally', fix: expect.stringContaining('new name') });
  }
  // count reads instead.
  expect((await post('count', { filters: { content: 'heart' } })).body.data.aggregate).toBeUndefined();
  mockCurrent.tally = V2;
});
