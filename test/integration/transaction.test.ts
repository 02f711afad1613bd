import { createClient, operation, RecordgateError } from '../../shared/client';
import { reaction } from '../../shared/models/reaction';
import { recordLayout } from '../../shared/store/layout/index-build';
import { againstArtifacts, ARTIFACT_TOKEN, useApi } from '../support/api';
import { measureMs, secondsFor } from '../support/machine-speed';
import { testModel } from '../support/test-catalog';
import { tableSnapshot } from '../support/table-snapshot';

// POST /api/db/transaction: operations across models, all or none, as one TransactWriteItems.
// What a caller sees is checked against what the table holds afterwards. `account` is one of the
// test models (test/support/test-catalog.ts): the local server serves it through this mock, the
// artifact project through bundles built with it.
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/test-catalog').withTestModels(jest.requireActual('../../shared/models/catalog')));
jest.mock('../../shared/models/every-model', () =>
  jest.requireActual('../support/test-catalog').everyModelWithTestModels(jest.requireActual('../../shared/models/every-model')),
);
const account = testModel('account');

const api = useApi({ testModels: true });
// As `npm start` and every deploy do before serving: an update's atomic path needs the schema recorded.
beforeAll(async () => {
  for (const model of [account, reaction]) await recordLayout(model);
});
const TRANSACTION = '/api/db/transaction';
const transact = (operations: unknown[], headers?: Record<string, string>) => api.post(TRANSACTION, { operations }, headers);
const route = (op: string) => `/api/db/reaction/${op}`;

/** Every record item of the table (the layout and idempotency items left out), by model and id. */
async function records(): Promise<Map<string, Record<string, any>>> {
  const items = await tableSnapshot();
  return new Map(
    items.filter((i) => typeof i.id === 'string' && /^(reaction|account)#/.test(String(i.pk))).map((i) => [`${String(i.pk).split('#')[0]}/${String(i.id)}`, i]),
  );
}

let n = 0;
/** An id no other test uses. */
const fresh = (prefix: string) => `${prefix}-${++n}`;

describe('all or none', () => {
  test('create, update, delete and check on one model apply together, each answered, and read back as any record', async () => {
    const [kept, gone, seen] = [fresh('kept'), fresh('gone'), fresh('seen')];
    const data = [
      { user_id: 1, content: 'laugh' },
      { user_id: 2, content: 'eyes' },
      { user_id: 4, content: 'eyes' },
    ];
    await api.post(route('create'), { data, ids: [kept, gone, seen] });
    const made = fresh('made');
    const r = await transact([
      { op: 'create', model: 'reaction', id: made, data: { user_id: 3, content: 'rocket' } },
      { op: 'update', model: 'reaction', id: kept, values: { content: 'heart', user_name: 'ann' }, filters: { content: 'laugh' } },
      { op: 'delete', model: 'reaction', id: gone },
      { op: 'check', model: 'reaction', id: seen, filters: { user_id: 4 } },
    ]);
    expect(r.status).toBe(200);
    const [created, updated, deleted, checked] = r.body.data.results;
    expect(created).toEqual({ op: 'create', record: expect.objectContaining({ id: made, user_id: 3, content: 'rocket', _version: 1 }) });
    expect(updated).toEqual({ op: 'update', record: expect.objectContaining({ id: kept, user_id: 1, content: 'heart', user_name: 'ann', _version: 2 }) });
    expect(deleted).toEqual({ op: 'delete', id: gone, deleted: true });
    expect(checked).toEqual({ op: 'check', id: seen, check: true });
    // Read through every read route, by the indexed fields too: the items hold their index keys.
    expect((await api.post(route('get_one'), { filters: { id: made } })).body.data).toEqual(created.record);
    expect((await api.post(route('get_one'), { filters: { id: kept } })).body.data).toEqual(updated.record);
    expect((await api.post(route('get_one'), { filters: { id: gone } })).status).toBe(404);
    const byContent = await api.post(route('list'), { filters: { content: 'heart' }, order_by: 'content' });
    expect(byContent.body.data.items.map((i: { id: string }) => i.id)).toContain(kept);
    expect((await api.post(route('count'), { filters: { content: 'rocket', id: made } })).body.data.count).toBe(1);
  });

  test('one refused operation writes nothing: its index and reason are named', async () => {
    const [a, b] = [fresh('a'), fresh('b')];
    await api.post(route('create'), {
      data: [
        { user_id: 1, content: 'x' },
        { user_id: 2, content: 'y' },
      ],
      ids: [a, b],
    });
    const before = await records();
    const cases: Array<[unknown[], number, string]> = [
      [
        [
          { op: 'update', model: 'reaction', id: a, values: { content: 'z' } },
          { op: 'check', model: 'reaction', id: b, filters: { user_id: 99 } },
        ],
        1,
        'condition_failed',
      ],
      [
        [
          { op: 'delete', model: 'reaction', id: a },
          { op: 'create', model: 'reaction', id: b, data: { user_id: 5, content: 'w' } },
        ],
        1,
        'exists',
      ],
      [
        [
          { op: 'create', model: 'reaction', data: { user_id: 5, content: 'w' } },
          { op: 'update', model: 'reaction', id: fresh('nobody'), values: { content: 'w' } },
        ],
        1,
        'missing',
      ],
      [
        [
          { op: 'delete', model: 'reaction', id: a, filters: { content: 'not-x' } },
          { op: 'delete', model: 'reaction', id: b },
        ],
        0,
        'condition_failed',
      ],
    ];
    for (const [operations, index, reason] of cases) {
      const r = await transact(operations);
      expect([r.status, r.body.data.error, r.body.data.reason, r.body.data.operation]).toEqual([409, 'conflict', reason, index]);
      expect(r.body.data.details).toEqual([{ path: `operations.${index}`, message: expect.any(String) }]);
    }
    expect(await records()).toEqual(before);
  });
});

test('concurrent updates that must read their record first (an indexed field) are made again from a fresh read: no change is lost', async () => {
  const id = fresh('read-first');
  await api.post(route('create'), { id, data: { user_id: 0, content: 'start' } });
  const one = await measureMs(() => transact([{ op: 'check', model: 'reaction', id, filters: {} }]));
  api.giveTime(secondsFor(10 * one));
  const replies = await Promise.all(
    Array.from({ length: 10 }, (_, i) => transact([{ op: 'update', model: 'reaction', id, values: { content: `c${i}`, $inc: { user_id: 1 } } }])),
  );
  expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
  const stored = (await records()).get(`reaction/${id}`)!;
  expect([stored.d.user_id, stored._version]).toEqual([10, 11]);
  // The index keys follow the last write: the record is found by the content it holds, and only by it.
  const byContent = await api.post(route('list'), { filters: { content: stored.d.content, id }, order_by: 'content' });
  expect(byContent.body.data.items.map((i: { id: string }) => i.id)).toEqual([id]);
}, 300_000);

/**
 * The time 50 concurrent transfers of one pair take: contention lets one through at a time, so one
 * may wait up to 50 rounds of one attempt (`one`, in ms) and one pause after a conflict (at most
 * 250 ms, shared/store/actions/transact/transact.ts).
 */
const fiftyTransfersTime = (one: number) => secondsFor(50 * (one + 250));

test('50 concurrent transfers of 1 guarded by filters from a reaction holding 20: exactly 20 apply, 30 are refused naming the operation, the sum is kept', async () => {
  const [from, to] = [fresh('t-from'), fresh('t-to')];
  await api.post(route('create'), {
    data: [
      { user_id: 20, content: 'transfer' },
      { user_id: 0, content: 'transfer' },
    ],
    ids: [from, to],
  });
  const one = await measureMs(() => transact([{ op: 'check', model: 'reaction', id: from, filters: {} }]));
  api.giveTime(fiftyTransfersTime(one));
  const replies = await Promise.all(
    Array.from({ length: 50 }, () =>
      transact([
        { op: 'update', model: 'reaction', id: from, values: { $inc: { user_id: -1 } }, filters: { user_id: { $gte: 1 } } },
        { op: 'update', model: 'reaction', id: to, values: { $inc: { user_id: 1 } } },
      ]),
    ),
  );
  expect(replies.filter((r) => r.status === 200)).toHaveLength(20);
  const refused = replies.filter((r) => r.status !== 200);
  expect(refused.map((r) => [r.status, r.body.data.operation, r.body.data.reason])).toEqual(refused.map(() => [409, 0, 'condition_failed']));
  const stored = await records();
  expect([stored.get(`reaction/${from}`)?.d.user_id, stored.get(`reaction/${to}`)?.d.user_id]).toEqual([0, 20]);
}, 300_000);

describe('refused before anything is sent', () => {
  test('data and values are checked as their model checks them: 422 naming every path, nothing stored', async () => {
    const a = fresh('v');
    await api.post(route('create'), { id: a, data: { user_id: 1, content: 'x' } });
    const before = await records();
    const r = await transact([
      { op: 'create', model: 'reaction', data: { user_id: 'one', content: 'x' } },
      { op: 'update', model: 'reaction', id: a, values: { content: null, nope: 1 } },
    ]);
    expect([r.status, r.body.data.error]).toEqual([422, 'validation_error']);
    expect(r.body.data.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'operations.0.data.user_id',
      'operations.1.values.content',
      'operations.1.values.nope',
    ]);
    expect(await records()).toEqual(before);
  });

  test("DynamoDB's limits are 400s naming the path: 101 operations, none, two on one record", async () => {
    const op = (i: number) => ({ op: 'create', model: 'reaction', id: `limit-${i}`, data: { user_id: i, content: 'x' } });
    const tooMany = await transact(Array.from({ length: 101 }, (_, i) => op(i)));
    expect([tooMany.status, tooMany.body.data.details[0].path]).toEqual([400, 'operations']);
    const none = await transact([]);
    expect([none.status, none.body.data.details[0].path]).toEqual([400, 'operations']);
    const twice = await transact([op(1), { op: 'check', model: 'reaction', id: 'limit-9', filters: {} }, { op: 'delete', model: 'reaction', id: 'limit-1' }]);
    expect([twice.status, twice.body.data.error, twice.body.data.details[0].path]).toEqual([400, 'invalid_request', 'operations.2']);
    const hundred = await transact(Array.from({ length: 100 }, (_, i) => op(i)));
    expect(hundred.status).toBe(200);
    expect((await api.post(route('count'), { filters: { id: { $begins_with: 'limit-' } } })).body.data.count).toBe(100);
  });

  test('an unknown op, model or filter field is a 400 naming it; a read-only model takes no write', async () => {
    const bad = await transact([{ op: 'upsert', model: 'reaction', id: 'x' }]);
    expect([bad.status, bad.body.data.error]).toEqual([400, 'invalid_request']);
    const unknown = await transact([{ op: 'check', model: 'nope', id: 'x', filters: {} }]);
    expect([unknown.status, unknown.body.data.error]).toEqual([404, 'unknown_model']);
    const field = await transact([{ op: 'check', model: 'reaction', id: 'x', filters: { nope: 1 } }]);
    expect([field.status, field.body.data.error, field.body.data.path]).toEqual([400, 'unknown_field', 'operations.0.filters.nope']);
    const readOnly = await transact([{ op: 'create', model: 'onebot_bot', data: {} }]);
    expect([readOnly.status, readOnly.body.data.error]).toEqual([403, 'forbidden']);
  });
});

test('the typed client sends a transaction and answers its results', async () => {
  const client = createClient({ baseUrl: api.url, ...(againstArtifacts() ? { token: ARTIFACT_TOKEN } : {}) });
  const id = fresh('client');
  const { results } = await client.transaction([operation(reaction, { op: 'create', id, data: { user_id: 1, content: 'typed' } })]);
  expect(results).toEqual([{ op: 'create', record: expect.objectContaining({ id, content: 'typed' }) }]);
  const refused = await client.transaction([operation(reaction, { op: 'delete', id: fresh('nobody') })]).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(RecordgateError);
  expect((refused as RecordgateError).details).toEqual([{ path: 'operations.0', message: expect.stringContaining('no reaction record') }]);
});

test("the OpenAPI document types each operation by its model's schemas; a read-only model takes checks only", async () => {
  const doc = JSON.parse((await api.get('/openapi.json')).text);
  const body = doc.paths['/api/db/transaction'].post.requestBody.content['application/json'].schema;
  const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
  const variants: Array<{ properties: Record<string, any> }> = schema.properties.operations.items.anyOf;
  const of = (model: string) => variants.filter((v) => v.properties.model.const === model).map((v) => v.properties.op.const);
  expect(of('reaction')).toEqual(['create', 'update', 'delete', 'check']);
  expect(of('onebot_bot')).toEqual(['check']);
  const create = variants.find((v) => v.properties.model.const === 'reaction' && v.properties.op.const === 'create')!;
  expect(Object.keys(create.properties.data.properties)).toEqual(['user_id', 'user_name', 'content']);
  expect(schema.properties.operations.maxItems).toBe(100);
});

describe('Idempotency-Key', () => {
  test('a transaction retried with its key applies once, and answers as the first time', async () => {
    const key = { 'idempotency-key': fresh('tx-key') };
    const operations = [
      { op: 'create', model: 'reaction', data: { user_id: 7, content: 'keyed' } },
      { op: 'create', model: 'reaction', data: { user_id: 8, content: 'keyed' } },
    ];
    const first = await transact(operations, key);
    const again = await transact(operations, key);
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await api.post(route('count'), { filters: { content: 'keyed' } })).body.data.count).toBe(2);
  });
});

/** Two new accounts holding these balances: their ids. */
async function twoAccounts(first: number, second: number): Promise<[string, string]> {
  const ids: [string, string] = [fresh('acc'), fresh('acc')];
  const r = await api.post('/api/db/account/create', {
    data: [
      { owner: 'ann', balance: first },
      { owner: 'bob', balance: second },
    ],
    ids,
  });
  expect(r.status).toBe(201);
  return ids;
}

describe('across models', () => {
  test('an update the model refuses is 422 for its operation, and nothing is written on any model', async () => {
    const [from] = await twoAccounts(1, 0);
    const before = await records();
    const r = await transact([
      { op: 'create', model: 'reaction', data: { user_id: 1, content: 'paid' } },
      { op: 'update', model: 'account', id: from, values: { balance: -1 } },
    ]);
    expect([r.status, r.body.data.details[0].path]).toEqual([422, 'operations.1.values.balance']);
    expect(await records()).toEqual(before);
  });

  test('50 concurrent transfers of 1 from an account holding 20: exactly 20 apply, the rest are refused naming the operation, the sum is kept', async () => {
    const [from, to] = await twoAccounts(20, 0);
    const one = await measureMs(() => transact([{ op: 'check', model: 'account', id: from, filters: {} }]));
    api.giveTime(fiftyTransfersTime(one));
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        transact([
          { op: 'update', model: 'account', id: from, values: { $inc: { balance: -1 } } },
          { op: 'update', model: 'account', id: to, values: { $inc: { balance: 1 } } },
        ]),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(20);
    const refused = replies.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.data.details[0].path])).toEqual(refused.map(() => [422, 'operations.0.values.balance']));
    const stored = await records();
    expect([stored.get(`account/${from}`)?.d, stored.get(`account/${to}`)?.d]).toEqual([
      { owner: 'ann', balance: 0 },
      { owner: 'bob', balance: 20 },
    ]);
  }, 300_000);
});
