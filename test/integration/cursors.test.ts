import { createHmac } from 'node:crypto';
import { queryFingerprint } from '../../shared/store/cursor/cursor';
import { useApi } from '../support/api';

const api = useApi();
const list = (body: unknown) => api.post('/api/db/reaction/list', body);
const SECRET = 'known-to-the-forger';

/** A cursor as the service would sign it: what someone holding (or guessing) the key can make. */
function forge(key: string, filters: unknown, orderBy: unknown, position: object): string {
  const payload = Buffer.from(JSON.stringify({ m: 'reaction', q: queryFingerprint(filters, orderBy), ...position })).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

describe('cursors the service did not issue for this query are 400 invalid_cursor, never 500', () => {
  beforeAll(async () => {
    const data = Array.from({ length: 6 }, (_, i) => ({ user_id: i, content: `c${i}` }));
    expect((await api.post('/api/db/reaction/create', { data, ids: data.map((_, i) => `a${i}`) })).status).toBe(201);
  });
  afterEach(() => {
    delete process.env.CURSOR_SECRET;
  });

  test('without CURSOR_SECRET, a cursor signed with a key derived from the table name is refused', async () => {
    const r = await list({ cursor: forge(`recordgate-cursor:${process.env.TABLE_NAME}`, undefined, undefined, { k: { sk: 'a2' } }) });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_cursor');
  });

  test.each([
    ['a start key outside the id range of the filter', { id: { $lt: 'a3' } }, undefined, { k: { sk: 'zzz' } }],
    ['an extra attribute', undefined, undefined, { k: { sk: 'a1', d: 'x' } }],
    ['a table key for an index read', undefined, 'content', { k: { sk: 'a1' } }],
    ['an index key without its id', undefined, 'content', { k: { g2sk: '"c4\u0000' } }],
    ["an index key outside the filter's range", { content: { $gte: 'c3' } }, 'content', { k: { g2sk: '"c1\u0000a1' } }],
    ['a position per shard, as cursors were before 2026-11-24', undefined, undefined, { p: [{ pk: 'reaction#0', sk: 'a2' }] }],
  ])('signed with the real key, %s', async (_, filters, orderBy, positions) => {
    process.env.CURSOR_SECRET = SECRET;
    const r = await list({ filters, order_by: orderBy, cursor: forge(SECRET, filters, orderBy, positions) });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_cursor', details: [{ path: 'cursor' }] });
  });

  test('a cursor of the earlier per-shard format says so, rather than resuming from a guess', async () => {
    process.env.CURSOR_SECRET = SECRET;
    const r = await list({ cursor: forge(SECRET, undefined, undefined, { p: [{ pk: 'reaction#0', sk: 'a2' }] }) });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/earlier version.*list again without a cursor/);
    expect(r.body.data).toMatchObject({ error: 'invalid_cursor', details: [{ path: 'cursor' }] });
  });

  test('a position no record holds any more still resumes at its place', async () => {
    process.env.CURSOR_SECRET = SECRET;
    const r = await list({ order_by: 'content', cursor: forge(SECRET, undefined, 'content', { k: { g2sk: '"c2\u0000gone' } }) });
    expect(r.status).toBe(200);
    expect(r.body.data.items.map((i: { id: string }) => i.id)).toEqual(['a3', 'a4', 'a5']);
  });

  test('a cursor the service issued still pages on', async () => {
    const first = await list({ order_by: 'content', limit: 2 });
    const next = await list({ order_by: 'content', limit: 2, cursor: first.body.data.next_cursor });
    expect(next.status).toBe(200);
    expect(next.body.data.items.map((r: { id: string }) => r.id)).toEqual(['a2', 'a3']);
  });
});

/** Issue 30: a cursor was bound to how the filter was spelt, so the same query written another way was 400. */
describe('a cursor is bound to what the filter means, not how it is spelt', () => {
  const idsOf = (r: { body: { data: { items: Array<{ id: string }> } } }) => r.body.data.items.map((i) => i.id);
  const first = () => list({ filters: { user_id: { $gte: 1, $lte: 5 }, content: { $ne: 'c9' } }, order_by: 'user_id', limit: 2 });
  beforeAll(async () => {
    expect((await api.post('/api/db/reaction/create', { data: [0, 1].map(() => ({ user_id: 70, content: 'same' })), ids: ['b0', 'b1'] })).status).toBe(201);
  });

  test.each<[string, unknown]>([
    ['keys in another order', { content: { $ne: 'c9' }, user_id: { $gte: 1, $lte: 5 } }],
    ['operators of one field in another order', { user_id: { $lte: 5, $gte: 1 }, content: { $ne: 'c9' } }],
    ['1.0 for 1', { user_id: { $gte: 1.0, $lte: 5 }, content: { $ne: 'c9' } }],
  ])('%s: the next page', async (_, filters) => {
    const page = await first();
    const next = await list({ filters, order_by: 'user_id', limit: 2, cursor: page.body.data.next_cursor });
    expect(next.status).toBe(200);
    expect(idsOf(next)).toEqual(['a3', 'a4']);
  });

  test.each<[string, unknown, unknown]>([
    ['{"$eq": v} for v', { user_id: { $eq: 70 } }, { user_id: 70 }],
    ['v for {"$eq": v}', { user_id: 70 }, { user_id: { $eq: 70 } }],
    ['$eq folded and keys reordered at once', { content: { $eq: 'same' }, user_id: { $gte: 70 } }, { user_id: { $gte: 70 }, content: 'same' }],
  ])('%s: the next page', async (_, filters, spelt) => {
    const page = await list({ filters, limit: 1 });
    expect(idsOf(page)).toEqual(['b0']);
    const next = await list({ filters: spelt, limit: 1, cursor: page.body.data.next_cursor });
    expect({ status: next.status, ids: idsOf(next) }).toEqual({ status: 200, ids: ['b1'] });
  });

  test.each<[string, unknown, unknown]>([
    ['another value', { user_id: 2 }, { user_id: 3 }],
    ['$in of one value for the value', { user_id: 2 }, { user_id: [2] }],
    ['another order_by', { user_id: 2 }, undefined],
  ])('%s is another query: 400 invalid_cursor', async (what, filters, other) => {
    const page = await list({ filters, limit: 1, ...(what === 'another order_by' ? { order_by: 'user_id' } : {}) });
    const r = await list({ filters: other ?? filters, limit: 1, cursor: page.body.data.next_cursor });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_cursor');
  });
});
