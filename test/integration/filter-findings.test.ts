import { onebotEvent } from '../../shared/models/onebot';
import { createRecords } from '../../shared/store/records';
import { useApi } from '../support/api';

// The eight wrong answers of issue 11, each as the user met it, on every engine.
const api = useApi();
const post = (model: string, op: string, body: unknown) => api.post(`/api/db/${model}/${op}`, body);
const count = async (model: string, filters: unknown) => {
  const r = await post(model, 'count', { filters });
  expect(r.status).toBe(200);
  return r.body.data.count as number;
};
const listIds = async (model: string, body: unknown) => {
  const r = await post(model, 'list', body);
  expect(r.status).toBe(200);
  return (r.body.data.items as Array<{ id: string }>).map((i) => i.id);
};
const q = (n: number) => 'q'.repeat(n);

const SENDER = { user_id: 42, nickname: 'Alice', card: '' };

beforeAll(async () => {
  const reactions = [
    ['t1-200', { user_id: 1, content: q(200) }],
    ['t1-250', { user_id: 1, content: q(250) }],
    ['t1-199e', { user_id: 1, content: `${q(199)}é` }],
    ['t4-～', { user_id: 4, content: 'x', user_name: '～' }],
    ['t5-empty', { user_id: 5, content: '' }],
  ] as const;
  const r = await post('reaction', 'create', { data: reactions.map(([, d]) => d), ids: reactions.map(([id]) => id) });
  expect(r.status).toBe(201);
  // onebot_event is read-only through the API: its records are written as the receiver writes them.
  const event = (id: string, group_id: unknown, event: Record<string, unknown>) => ({ id, data: { self_id: 1, post_type: 'message', group_id, event } });
  await createRecords(
    onebotEvent,
    {
      records: [
        event('e-abc', 'abc', { sender: SENDER, tags: ['a', 'b'], flag: false }),
        event('e-7', 7, { sender: { nickname: 'Bob' }, tags: ['b'], flag: true }),
      ],
    },
    { pathOf: () => [] },
  );
});

describe('1. indexed strings longer than the index key prefix', () => {
  test('equality is exact', async () => {
    expect(await count('reaction', { content: q(200) })).toBe(1);
    expect(await listIds('reaction', { filters: { content: q(200) } })).toEqual(['t1-200']);
    expect(await count('reaction', { content: q(199) })).toBe(0);
    expect(await count('reaction', { content: q(250) })).toBe(1);
  });

  test('ranges are exact, ordered by the field or not', async () => {
    expect(await listIds('reaction', { filters: { content: { $lte: q(200) } }, order_by: 'content' })).toEqual(['t5-empty', 't1-200']);
    expect(await listIds('reaction', { filters: { content: { $gt: `${q(199)}b` } } })).toEqual(['t1-199e', 't1-200', 't1-250', 't4-～']);
    // Ordering uses the key's prefix: q×199+é keeps q×199 there, and q×200 and q×250 tie, by id.
    expect(await listIds('reaction', { filters: { content: { $gt: `${q(199)}b` } }, order_by: '-content' })).toEqual(['t4-～', 't1-250', 't1-200', 't1-199e']);
  });
});

test("2. a range on a field mixing numbers and strings keeps to the operand's kind, in any order", async () => {
  expect(await listIds('onebot_event', { filters: { group_id: { $gt: 'a' } }, order_by: 'group_id' })).toEqual(['e-abc']);
  expect(await listIds('onebot_event', { filters: { group_id: { $gt: 'a' } } })).toEqual(['e-abc']);
  expect(await listIds('onebot_event', { filters: { group_id: { $lt: 100 } }, order_by: '-group_id' })).toEqual(['e-7']);
});

test('3. dotted paths reach three levels into a free-form object', async () => {
  expect(await count('onebot_event', { 'event.sender.nickname': 'Alice' })).toBe(1);
  expect(await count('onebot_event', { 'event.sender.nickname': { $begins_with: 'B' } })).toBe(1);
});

test('4. equality with a whole array or object', async () => {
  expect(await count('onebot_event', { 'event.tags': { $eq: ['a', 'b'] } })).toBe(1);
  expect(await count('onebot_event', { 'event.tags': { $in: [['a', 'b']] } })).toBe(1);
  expect(await count('onebot_event', { 'event.tags': { $eq: ['b', 'a'] } })).toBe(0);
  // Key order does not matter, values do.
  expect(await count('onebot_event', { 'event.sender': { $eq: { card: '', nickname: 'Alice', user_id: 42 } } })).toBe(1);
  expect(await count('onebot_event', { 'event.sender': { $eq: { ...SENDER, user_id: 43 } } })).toBe(0);
  expect(await count('onebot_event', { 'event.sender': { $ne: SENDER } })).toBe(1);
});

test('5. strings order by UTF-8 bytes', async () => {
  expect(await count('reaction', { user_name: { $lt: '😀' } })).toBe(1);
  expect(await count('reaction', { user_name: { $gt: '😀' } })).toBe(0);
  expect(await listIds('reaction', { filters: { id: { $gt: 't4', $lt: 't4-😀' } } })).toEqual(['t4-～']);
});

test('6. the empty string and false in $in, $nin and $between', async () => {
  expect(await count('reaction', { content: { $in: [''] } })).toBe(1);
  expect(await count('reaction', { content: [''] })).toBe(1);
  expect(await count('reaction', { content: { $nin: [''] } })).toBe(4);
  expect(await listIds('reaction', { filters: { content: { $between: ['', 'b'] } } })).toEqual(['t5-empty']);
  expect(await count('onebot_event', { 'event.flag': { $in: [false] } })).toBe(1);
  expect(await count('onebot_event', { 'event.flag': false })).toBe(1);
});

describe("7. a filter's cost is bounded", () => {
  test('nested $not answers in a fraction of a second', async () => {
    const filters = {
      $not: { $not: { $not: { user_name: { $exists: false }, content: { $exists: true } }, user_id: { $exists: true } }, id: { $exists: true } },
      _version: { $exists: true },
    };
    const started = Date.now();
    expect(await count('reaction', filters)).toBe(1);
    const deepest = { $not: { $not: { $not: { $not: { $not: { user_id: { $not: { $gt: 1 } } } } } } } };
    expect((await post('reaction', 'count', { filters: deepest })).status).toBe(400);
    expect(await count('reaction', { $not: { $not: { $not: { $not: { $not: { user_id: { $gt: 1 } } } } } } })).toBe(3);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("a filter that would compile past DynamoDB's 4 KB expression is 400 invalid_filter", async () => {
    const values = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const filters = { $or: Array.from({ length: 10 }, () => ({ content: { $nin: values } })) };
    const r = await post('reaction', 'count', { filters });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_filter');
    expect(r.body.data.details[0].message).toMatch(/compiles to \d+ characters/);
  });
});

test('8. a record over 400 KB in UTF-8 is 413 and not stored; one under it is stored', async () => {
  const big = await post('reaction', 'create', { data: { user_id: 8, content: '😀'.repeat(150_000) } });
  expect(big.status).toBe(413);
  expect(big.body.data).toMatchObject({ error: 'payload_too_large', max_item_bytes: 409_600 });
  expect(await count('reaction', { user_id: 8 })).toBe(0);
  const under = await post('reaction', 'create', { data: { user_id: 8, content: '😀'.repeat(100_000) } });
  expect(under.status).toBe(201);
  const grown = await post('reaction', 'update', { filters: { user_id: 8 }, values: { content: '😀'.repeat(103_000) } });
  expect(grown.status).toBe(413);
  expect((await post('reaction', 'get_one', { filters: { user_id: 8 } })).body.data.content).toHaveLength(200_000);
});
