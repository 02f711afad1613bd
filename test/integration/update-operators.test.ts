import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { classify } from '../../shared/answer/respond';
import { createRecords, updateRecords } from '../../shared/store/records';
import type { UpdateRequest } from '../../shared/store/types';
import { useApi } from '../support/api';
import { stockModel } from '../support/models';
import { storedItems } from '../support/stored';

// Update operators and upsert (issue 32), on the engine the run started: what each caller is
// answered, and what is stored afterwards.
const model = stockModel('op_stock');
const api = useApi();

const stored = async (id: string) => (await storedItems(model)).find((item) => item.id === id);
const data = async (id: string) => (await stored(id))?.d as Record<string, unknown> | undefined;
const create = (id: string, record: Record<string, unknown>) => createRecords(model, { records: [{ id, data: record }] }, { pathOf: () => ['data'] });
const update = (request: UpdateRequest) => updateRecords(model, request);

/** What a caller of the API would be told: status, code and details. */
async function answered(request: UpdateRequest) {
  try {
    return { status: 200, data: await update(request) };
  } catch (error) {
    const answer = classify(error);
    return { status: answer.status, code: answer.code, details: answer.extra.details };
  }
}

test('$set into a nested path keeps the other nested fields; the shorthand replaces the object whole', async () => {
  await create('nested', { title: 't', meta: { source: 's', stars: 3 } });
  await update({ filters: { id: 'nested' }, values: { $set: { 'meta.read': true } } });
  expect(await data('nested')).toEqual({ title: 't', meta: { source: 's', stars: 3, read: true } });
  await update({ filters: { id: 'nested' }, values: { meta: { read: false } } });
  expect(await data('nested')).toEqual({ title: 't', meta: { read: false } });
});

test('$inc is exact and starts a missing path from 0; $unset removes an optional field, not a required one', async () => {
  await create('exact', { title: 't', n: 0.1, rank: NumberValue.from('18446744073709551616') });
  await update({ filters: { id: 'exact' }, values: { $inc: { n: 0.2, rank: 1 } } });
  expect(await data('exact')).toEqual({ title: 't', n: 0.3, rank: NumberValue.from('18446744073709551617') });
  await create('from-zero', { title: 't', code: 'x' });
  await update({ filters: { id: 'from-zero' }, values: { $inc: { 'meta.stars': 2, stock: 5 }, $unset: { code: '' } } });
  expect(await answered({ filters: { id: 'from-zero' }, values: { $unset: { title: '' } } })).toMatchObject({
    status: 422,
    details: [{ path: 'values.title' }],
  });
  expect(await data('from-zero')).toEqual({ title: 't', meta: { stars: 2 }, stock: 5 });
});

test('$min, $max, $push, $addToSet and $pull, by filter over several records', async () => {
  await create('arr1', { title: 'arr', n: 5, tags: ['a', 'b'] });
  await create('arr2', { title: 'arr', n: 1 });
  const answer = await update({ filters: { title: 'arr' }, values: { $min: { n: 3 }, $addToSet: { tags: { $each: ['b', 'c'] } } } });
  expect(answer).toMatchObject({ updated: 2, matched: 2 });
  expect(await data('arr1')).toEqual({ title: 'arr', n: 3, tags: ['a', 'b', 'c'] });
  expect(await data('arr2')).toEqual({ title: 'arr', n: 1, tags: ['b', 'c'] });
  await update({ filters: { title: 'arr' }, values: { $pull: { tags: 'b' }, $max: { n: 2 } } });
  expect(await data('arr1')).toEqual({ title: 'arr', n: 3, tags: ['a', 'c'] });
  expect(await data('arr2')).toEqual({ title: 'arr', n: 2, tags: ['c'] });
  await update({ filters: { id: 'arr2' }, values: { $push: { tags: { $each: ['c', 'd'] } } } });
  expect(await data('arr2')).toEqual({ title: 'arr', n: 2, tags: ['c', 'c', 'd'] });
});

test('an operator on a kind that cannot take it is a 400 naming the path; a result the model refuses a 422; nothing is written', async () => {
  await create('refused', { title: 't', stock: 0, tags: ['a', 'b', 'c'], code: 'abc' });
  const before = await stored('refused');
  expect(await answered({ filters: { id: 'refused' }, values: { $inc: { title: 1 } } })).toMatchObject({
    status: 400,
    details: [{ path: 'values.$inc.title', message: expect.stringContaining('holds string') }],
  });
  expect(await answered({ filters: { id: 'refused' }, values: { $inc: { stock: -1 } } })).toMatchObject({
    status: 422,
    details: [{ path: 'values.stock' }],
  });
  expect(await answered({ filters: { id: 'refused' }, values: { $push: { tags: 'd' } } })).toMatchObject({ status: 422, details: [{ path: 'values.tags' }] });
  expect(await answered({ filters: { id: 'refused' }, values: { code: 'ABC' } })).toMatchObject({ status: 422, details: [{ path: 'values.code' }] });
  expect(await answered({ filters: { id: 'refused' }, values: { $set: { 'meta.stars': 'x' } } })).toMatchObject({ status: 422 });
  expect(await stored('refused')).toEqual(before);
});

test('100 concurrent $inc: 1 on one record: every one 200 updated 1, the value up by 100', async () => {
  await create('hot', { title: 't', n: 0 });
  const answers = await Promise.all(Array.from({ length: 100 }, () => answered({ filters: { id: 'hot' }, values: { $inc: { n: 1 } } })));
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  expect(answers.every((a) => a.status === 200 && a.data?.updated === 1)).toBe(true);
  expect(await stored('hot')).toMatchObject({ d: { title: 't', n: 100 }, _version: 101 });
}, 120_000);

test('20 concurrent $inc: -1 on stock 10: exactly 10 applied, the rest 422, stock 0', async () => {
  await create('stock', { title: 't', stock: 10 });
  const answers = await Promise.all(Array.from({ length: 20 }, () => answered({ filters: { id: 'stock' }, values: { $inc: { stock: -1 } } })));
  expect(answers.filter((a) => a.status === 200 && a.data?.updated === 1)).toHaveLength(10);
  expect(answers.filter((a) => a.status === 422)).toHaveLength(10);
  expect(await stored('stock')).toMatchObject({ d: { stock: 0 }, _version: 11 });
}, 120_000);

test('upsert creates a missing record from the filter, $set and $setOnInsert, then updates it and skips $setOnInsert', async () => {
  const values = { $setOnInsert: { title: 'first' }, $inc: { n: 1 }, $set: { code: 'abc' } };
  expect(await update({ filters: { id: 'up', n: { $gte: 0 } }, values, upsert: true })).toMatchObject({ updated: 0, upserted: true });
  expect(await stored('up')).toMatchObject({ d: { title: 'first', n: 1, code: 'abc' }, _version: 1 });
  expect(await update({ filters: { id: 'up' }, values: { ...values, $setOnInsert: { title: 'second' } }, upsert: true })).toMatchObject({
    updated: 1,
    upserted: false,
  });
  expect(await stored('up')).toMatchObject({ d: { title: 'first', n: 2, code: 'abc' }, _version: 2 });
  expect(await answered({ filters: { id: 'new', meta: { read: true } }, values: { $set: { n: 1 } }, upsert: true })).toMatchObject({
    status: 422,
    details: [{ path: 'values.title' }],
  });
  expect(await stored('new')).toBeUndefined();
  expect(await answered({ filters: { title: 'x' }, values: { n: 1 }, upsert: true })).toMatchObject({
    status: 400,
    details: [{ path: 'filters', message: expect.stringContaining('id') }],
  });
  expect(await answered({ filters: { id: 'up' }, values: { $setOnInsert: { n: 1 } } })).toMatchObject({
    status: 400,
    details: [{ path: 'values.$setOnInsert' }],
  });
});

test('20 concurrent $inc: 1 upserts of a missing id make one record with n: 20', async () => {
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => answered({ filters: { id: 'counter' }, values: { $setOnInsert: { title: 'c' }, $inc: { n: 1 } }, upsert: true })),
  );
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  expect(answers.filter((a) => a.data?.upserted === true)).toHaveLength(1);
  expect(await stored('counter')).toMatchObject({ d: { title: 'c', n: 20 }, _version: 20 });
}, 120_000);

test('through the API: operators and upsert on the reaction model, and their refusals', async () => {
  const post = (body: unknown) => api.post('/api/db/reaction/update', body);
  await api.post('/api/db/reaction/create', { id: 'ops', data: { user_id: 1, content: '+1' } });
  expect((await post({ filters: { id: 'ops' }, values: { $inc: { user_id: 41 }, $set: { user_name: 'ann' } } })).body.data).toMatchObject({ updated: 1 });
  expect((await api.post('/api/db/reaction/get_one', { filters: { id: 'ops' } })).body.data).toMatchObject({ user_id: 42, user_name: 'ann' });
  const refused = await post({ filters: { id: 'ops' }, values: { $inc: { content: 1 } } });
  expect({ status: refused.status, details: refused.body.data.details }).toEqual({
    status: 400,
    details: [{ path: 'values.$inc.content', message: expect.stringContaining('holds string') }],
  });
  const upserted = await post({ filters: { id: 'ups', content: 'heart' }, values: { $setOnInsert: { user_id: 7 } }, upsert: true });
  expect({ status: upserted.status, data: upserted.body.data }).toMatchObject({ status: 200, data: { upserted: true } });
  expect((await api.post('/api/db/reaction/get_one', { filters: { id: 'ups' } })).body.data).toMatchObject({ user_id: 7, content: 'heart', _version: 1 });
});
