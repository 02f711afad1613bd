import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { reaction } from '../../shared/models/reaction';
import { recordLayout } from '../../shared/store/layout/index-build';
import { againstArtifacts, localOnly, useApi } from '../support/api';
import { updateRecords } from '../../shared/store/actions/update/update';
import { measureMs, secondsFor } from '../support/machine-speed';
import { stockModel } from '../support/models';
import { commandsSent } from '../support/commands-sent';
import { storedItems } from '../support/stored';

// Update operators and upsert (issue 32), over HTTP as a user sends them: status, body, and what
// is stored afterwards. The bounded-stock model is served by the local server only (a model a
// test adds never reaches the bundles), so its cases run locally and reaction's everywhere.
const STOCK = stockModel('op_stock');
jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, STOCK.name],
    findModel: (name: string) => (name === STOCK.name ? STOCK : actual.findModel(name)),
  };
});

const api = useApi();
const stock = (op: string, body: unknown) => api.post(`/api/db/op_stock/${op}`, body);
const update = async (body: unknown) => {
  const reply = await stock('update', body);
  return { status: reply.status, data: reply.body?.data };
};
const create = async (id: string, data: Record<string, unknown>) => expect((await stock('create', { id, data })).status).toBe(201);
const stored = async (id: string) => (await storedItems(STOCK)).find((item) => item.id === id);
const data = async (id: string) => (await stored(id))?.d as Record<string, unknown> | undefined;

// The last of N writers may wait out others' writes: each function gets time for N updates as
// this machine runs them now (test/support/machine-speed.ts), as contention.test.ts sizes it.
beforeAll(async () => {
  // As `npm start` and every deploy do before serving (the one write needs the schema recorded).
  for (const model of [STOCK, reaction]) await recordLayout(model);
  await api.post('/api/db/reaction/create', { id: 'op-calibration', data: { user_id: 0, content: 'one' } });
  const one = await measureMs(() => api.post('/api/db/reaction/update', { filters: { id: 'op-calibration' }, values: { user_name: 'x' } }));
  api.giveTime(secondsFor(100 * one));
}, 300_000);

localOnly('$set into a nested path keeps the other nested fields; the plain shorthand replaces the object whole', async () => {
  await create('nested', { title: 't', meta: { source: 's', stars: 3 } });
  expect(await update({ filters: { id: 'nested' }, values: { $set: { 'meta.read': true } } })).toMatchObject({ status: 200, data: { updated: 1 } });
  expect(await data('nested')).toEqual({ title: 't', meta: { source: 's', stars: 3, read: true } });
  await update({ filters: { id: 'nested' }, values: { meta: { read: false } } });
  expect(await data('nested')).toEqual({ title: 't', meta: { read: false } });
});

localOnly('$inc is exact and starts a missing path from 0; $unset removes an optional field, not a required one', async () => {
  await create('exact', { title: 't', n: 0.1, rank: NumberValue.from('18446744073709551616') });
  await update({ filters: { id: 'exact' }, values: { $inc: { n: 0.2, rank: 1 } } });
  expect(await data('exact')).toEqual({ title: 't', n: 0.3, rank: NumberValue.from('18446744073709551617') });
  await create('from-zero', { title: 't', code: 'x' });
  await update({ filters: { id: 'from-zero' }, values: { $inc: { 'meta.stars': 2, stock: 5 }, $unset: { code: '' } } });
  expect(await update({ filters: { id: 'from-zero' }, values: { $unset: { title: '' } } })).toMatchObject({
    status: 422,
    data: { error: 'validation_error', details: [{ path: 'values.title' }] },
  });
  expect(await data('from-zero')).toEqual({ title: 't', meta: { stars: 2 }, stock: 5 });
});

localOnly('an $inc whose exact result has more digits than DynamoDB keeps is a 422, nothing written, on the one-write path too', async () => {
  await create('digits', { title: 't', n: NumberValue.from('10000000000000000000000000000000000000') });
  expect(await update({ filters: { id: 'digits' }, values: { $inc: { n: 0.1 } } })).toMatchObject({
    status: 422,
    data: { error: 'validation_error', details: [{ path: 'values.n', message: expect.stringContaining('significant digits') }] },
  });
  expect(await stored('digits')).toMatchObject({ _version: 1 });
});

localOnly('$min, $max, $push, $addToSet and $pull, by filter over several records', async () => {
  await create('arr1', { title: 'arr', n: 5, tags: ['a', 'b'] });
  await create('arr2', { title: 'arr', n: 1 });
  expect(await update({ filters: { title: 'arr' }, values: { $min: { n: 3 }, $addToSet: { tags: { $each: ['b', 'c'] } } } })).toMatchObject({
    data: { updated: 2, matched: 2 },
  });
  expect(await data('arr1')).toEqual({ title: 'arr', n: 3, tags: ['a', 'b', 'c'] });
  expect(await data('arr2')).toEqual({ title: 'arr', n: 1, tags: ['b', 'c'] });
  await update({ filters: { title: 'arr' }, values: { $pull: { tags: 'b' }, $max: { n: 2 } } });
  expect(await data('arr1')).toEqual({ title: 'arr', n: 3, tags: ['a', 'c'] });
  expect(await data('arr2')).toEqual({ title: 'arr', n: 2, tags: ['c'] });
  await update({ filters: { id: 'arr2' }, values: { $push: { tags: { $each: ['c', 'd'] } } } });
  expect(await data('arr2')).toEqual({ title: 'arr', n: 2, tags: ['c', 'c', 'd'] });
});

localOnly('an operator on a kind that cannot take it is a 400 naming the path; a result the model refuses a 422; nothing is written', async () => {
  await create('refused', { title: 't', stock: 0, tags: ['a', 'b', 'c'], code: 'abc' });
  const before = await stored('refused');
  expect(await update({ filters: { id: 'refused' }, values: { $inc: { title: 1 } } })).toMatchObject({
    status: 400,
    data: { error: 'invalid_request', details: [{ path: 'values.$inc.title', message: expect.stringContaining('holds a string') }] },
  });
  const refusedWith = async (values: unknown) => (await update({ filters: { id: 'refused' }, values })).data?.details?.[0]?.path;
  expect(await refusedWith({ $inc: { stock: -1 } })).toBe('values.stock');
  expect(await refusedWith({ $push: { tags: 'd' } })).toBe('values.tags');
  expect(await refusedWith({ code: 'ABC' })).toBe('values.code');
  expect(await update({ filters: { id: 'refused' }, values: { $set: { 'meta.stars': 'x' } } })).toMatchObject({ status: 422 });
  expect(await stored('refused')).toEqual(before);
});

localOnly(
  '100 concurrent $inc: 1 on one record: every one 200 updated 1, the value up by 100, each one UpdateItem and no read',
  async () => {
    await create('hot', { title: 't', n: 0 });
    let answers: Array<{ status: number; data: Record<string, any> }> = [];
    const sent = await commandsSent(async () => {
      answers = await Promise.all(Array.from({ length: 100 }, () => update({ filters: { id: 'hot' }, values: { $inc: { n: 1 } } })));
    });
    expect(answers.filter((a) => a.status !== 200 || a.data.updated !== 1)).toEqual([]);
    expect(sent).toEqual({ UpdateItemCommand: 100 });
    expect(await stored('hot')).toMatchObject({ d: { title: 't', n: 100 }, _version: 101 });
  },
  300_000,
);

localOnly(
  '20 concurrent $inc: -1 on stock 10: exactly 10 applied, the rest 422, stock 0',
  async () => {
    await create('stock', { title: 't', stock: 10 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => update({ filters: { id: 'stock' }, values: { $inc: { stock: -1 } } })));
    expect(answers.filter((a) => a.status === 200 && a.data.updated === 1)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 422 && a.data.error === 'validation_error')).toHaveLength(10);
    expect(await stored('stock')).toMatchObject({ d: { stock: 0 }, _version: 11 });
  },
  300_000,
);

localOnly('upsert creates a missing record from the filter, $set and $setOnInsert, then updates it and skips $setOnInsert', async () => {
  const values = { $setOnInsert: { title: 'first' }, $inc: { n: 1 }, $set: { code: 'abc' } };
  expect(await update({ filters: { id: 'up', n: { $gte: 0 } }, values, upsert: true })).toMatchObject({ status: 200, data: { updated: 0, upserted: true } });
  expect(await stored('up')).toMatchObject({ d: { title: 'first', n: 1, code: 'abc' }, _version: 1 });
  expect(await update({ filters: { id: 'up' }, values: { ...values, $setOnInsert: { title: 'second' } }, upsert: true })).toMatchObject({
    data: { updated: 1, upserted: false },
  });
  expect(await stored('up')).toMatchObject({ d: { title: 'first', n: 2, code: 'abc' }, _version: 2 });
  expect(await update({ filters: { id: 'new', 'meta.read': true }, values: { $set: { n: 1 } }, upsert: true })).toMatchObject({
    status: 422,
    data: { details: [{ path: 'values.title' }] },
  });
  expect(await stored('new')).toBeUndefined();
  expect(await update({ filters: { id: 'up', title: 'other' }, values: { n: 1 }, upsert: true })).toMatchObject({ status: 409, data: { error: 'conflict' } });
  expect(await stored('up')).toMatchObject({ _version: 2 });
});

localOnly(
  '20 concurrent $inc: 1 upserts of a missing id make one record with n: 20',
  async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => update({ filters: { id: 'counter' }, values: { $setOnInsert: { title: 'c' }, $inc: { n: 1 } }, upsert: true })),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.filter((a) => a.data.upserted === true)).toHaveLength(1);
    expect(await stored('counter')).toMatchObject({ d: { title: 'c', n: 20 }, _version: 20 });
  },
  300_000,
);

test('concurrent upserts of a missing id, each under its own Idempotency-Key, make one record and all count (also through the bundles)', async () => {
  // Each process of the bundles is a Lambda sandbox: fewer there.
  const N = againstArtifacts() ? 5 : 20;
  const answers = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      api.post(
        '/api/db/reaction/update',
        { filters: { id: 'keyed-counter' }, values: { $setOnInsert: { content: 'keyed' }, $inc: { user_id: 1 } }, upsert: true },
        { 'idempotency-key': `keyed-counter-${i}` },
      ),
    ),
  );
  expect(answers.filter((a) => a.status !== 200).map((a) => a.text)).toEqual([]);
  expect(answers.map((a) => a.body.data.upserted).sort()).toEqual([...Array(N - 1).fill(false), true]);
  expect((await api.post('/api/db/reaction/get_one', { filters: { id: 'keyed-counter' } })).body.data).toMatchObject({ user_id: N, _version: N });
});

localOnly("a keyed upsert's retry whose first run's create never landed updates the record another writer made meanwhile", async () => {
  // The state a retry takes over after outcome_unknown: its run planned no record (it matched none) and its create is not stored.
  const run = { operation: 'retry-raced-run', since: Date.now(), plan: [] };
  await create('raced', { title: 'other', n: 5 });
  const answer = await updateRecords(
    STOCK,
    { filters: { id: 'raced' }, values: { $setOnInsert: { title: 'mine' }, $inc: { n: 1 } }, upsert: true },
    { keyRun: run },
  );
  expect(answer).toMatchObject({ updated: 1, matched: 1, upserted: false });
  expect(await stored('raced')).toMatchObject({ d: { title: 'other', n: 6 }, _version: 2 });
});

test('reaction: operators and upsert, and their refusals (also through the bundles)', async () => {
  const post = (body: unknown) => api.post('/api/db/reaction/update', body);
  const getOne = async (id: string) => (await api.post('/api/db/reaction/get_one', { filters: { id } })).body.data;
  await api.post('/api/db/reaction/create', { id: 'ops', data: { user_id: 1, content: '+1' } });
  expect((await post({ filters: { id: 'ops' }, values: { $inc: { user_id: 41 }, $set: { user_name: 'ann' } } })).body.data).toMatchObject({ updated: 1 });
  expect(await getOne('ops')).toMatchObject({ user_id: 42, user_name: 'ann', _version: 2 });
  const refused = await post({ filters: { id: 'ops' }, values: { $inc: { content: 1 } } });
  expect({ status: refused.status, error: refused.body.data.error, details: refused.body.data.details }).toEqual({
    status: 400,
    error: 'invalid_request',
    details: [{ path: 'values.$inc.content', message: expect.stringContaining('holds a string') }],
  });
  const withoutId = await post({ filters: { content: '+1' }, values: { user_name: 'x' }, upsert: true });
  expect({ status: withoutId.status, message: withoutId.body.data.details?.[0] }).toMatchObject({ status: 400, message: { path: 'filters' } });
  const upserted = await post({ filters: { id: 'ups', content: 'heart' }, values: { $setOnInsert: { user_id: 7 } }, upsert: true });
  expect({ status: upserted.status, data: upserted.body.data }).toMatchObject({ status: 200, data: { updated: 0, upserted: true } });
  expect(await getOne('ups')).toMatchObject({ user_id: 7, content: 'heart', _version: 1 });
  expect(await getOne('ops')).toMatchObject({ user_id: 42, user_name: 'ann', _version: 2 });
});

test("the one write (an id alone, a field not indexed) answers the record's new ETag from the write's own answer, with no read", async () => {
  await api.post('/api/db/reaction/create', { id: 'one-tag', data: { user_id: 1, content: 'one-tag' } });
  let reply: Awaited<ReturnType<typeof api.post>> | undefined;
  const sent = await commandsSent(async () => {
    reply = await api.post('/api/db/reaction/update', { filters: { id: 'one-tag' }, values: { $set: { user_name: 'x' } } });
  });
  if (!againstArtifacts()) expect(sent).toEqual({ UpdateItemCommand: 1 });
  const read = await api.post('/api/db/reaction/get_one', { filters: { id: 'one-tag' } });
  expect(read.body.data).toMatchObject({ user_name: 'x', _version: 2 });
  expect(reply!.headers.get('etag')).toBe(read.headers.get('etag'));
});

test('a record the update would make larger than DynamoDB takes is a 413, nothing written, on the one-write path too', async () => {
  await api.post('/api/db/reaction/create', { id: 'big', data: { user_id: 1, content: 'big' } });
  const answer = await api.post('/api/db/reaction/update', { filters: { id: 'big' }, values: { user_name: 'x'.repeat(410_000) } });
  expect({ status: answer.status, error: answer.body.data.error }).toEqual({ status: 413, error: 'payload_too_large' });
  expect((await api.post('/api/db/reaction/get_one', { filters: { id: 'big' } })).body.data).toMatchObject({ _version: 1 });
});

test('If-Match holds on an update the one write could apply (a field not indexed, by id): a stale tag is a 412 and nothing is written', async () => {
  const post = (op: string, body: unknown, headers?: Record<string, string>) => api.post(`/api/db/reaction/${op}`, body, headers);
  await post('create', { id: 'tagged', data: { user_id: 1, content: 'tagged' } });
  const tag = (await post('get_one', { filters: { id: 'tagged' } })).headers.get('etag')!;
  const ok = await post('update', { filters: { id: 'tagged' }, values: { $set: { user_name: 'first' } } }, { 'if-match': tag });
  expect({ status: ok.status, updated: ok.body.data.updated }).toEqual({ status: 200, updated: 1 });
  const stale = await post('update', { filters: { id: 'tagged' }, values: { $set: { user_name: 'second' } } }, { 'if-match': tag });
  expect({ status: stale.status, error: stale.body.data.error }).toEqual({ status: 412, error: 'precondition_failed' });
  expect((await post('get_one', { filters: { id: 'tagged' } })).body.data).toMatchObject({ user_name: 'first', _version: 2 });
});
