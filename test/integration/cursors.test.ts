import { createHmac } from 'node:crypto';
import { queryFingerprint } from '../../shared/store/cursor';
import { useApi } from '../support/api';

const api = useApi();
const list = (body: unknown) => api.post('/api/db/reaction/list', body);
const SECRET = 'known-to-the-forger';

/** A cursor as the service would sign it: what someone holding (or guessing) the key can make. */
function forge(key: string, filters: unknown, orderBy: unknown, positions: unknown[]): string {
  const payload = Buffer.from(JSON.stringify({ m: 'reaction', q: queryFingerprint(filters, orderBy), p: positions })).toString('base64url');
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
    const r = await list({ cursor: forge(`recordgate-cursor:${process.env.TABLE_NAME}`, undefined, undefined, [{ pk: 'reaction#0', sk: 'a2' }]) });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_cursor');
  });

  test.each([
    ['a start key outside the id range of the filter', { id: { $lt: 'a3' } }, undefined, [{ pk: 'reaction#0', sk: 'zzz' }]],
    ["another model's partition", undefined, undefined, [{ pk: 'onebot_rule#0', sk: 'a1' }]],
    ['an extra attribute', undefined, undefined, [{ pk: 'reaction#0', sk: 'a1', d: 'x' }]],
    ['an index read without its index keys', undefined, 'content', [{ pk: 'reaction#0', sk: 'a1' }]],
    ['an index key of another record', undefined, 'content', [{ pk: 'reaction#0', sk: 'a1', g2pk: 'reaction#content#0', g2sk: '"c4\u0000a4' }]],
    [
      "an index key outside the filter's range",
      { content: { $gte: 'c3' } },
      'content',
      [{ pk: 'reaction#0', sk: 'a1', g2pk: 'reaction#content#0', g2sk: '"c1\u0000a1' }],
    ],
  ])('signed with the real key, %s', async (_, filters, orderBy, positions) => {
    process.env.CURSOR_SECRET = SECRET;
    const r = await list({ filters, order_by: orderBy, cursor: forge(SECRET, filters, orderBy, positions) });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_cursor', details: [{ path: 'cursor' }] });
  });

  test('a cursor the service issued still pages on', async () => {
    const first = await list({ order_by: 'content', limit: 2 });
    const next = await list({ order_by: 'content', limit: 2, cursor: first.body.data.next_cursor });
    expect(next.status).toBe(200);
    expect(next.body.data.items.map((r: { id: string }) => r.id)).toEqual(['a2', 'a3']);
  });
});
