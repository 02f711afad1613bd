import { useApi } from '../support/api';

const api = useApi();
const post = (op: string, body: unknown) => api.post(`/api/db/reaction/${op}`, body);
const ids = (r: { body: { data: { items: { id: string }[] } } }) => r.body.data.items.map((i) => i.id);

// r01..r12: user_id 1..12, content cycles +1/heart/rocket, user_name only on even ids.
const CONTENTS = ['+1', 'heart', 'rocket'];
const records = Array.from({ length: 12 }, (_, i) => ({
  id: `r${String(i + 1).padStart(2, '0')}`,
  data: { user_id: i + 1, content: CONTENTS[i % 3], ...(i % 2 === 1 ? { user_name: `user${i + 1}` } : {}) },
}));

beforeAll(async () => {
  const r = await post('create', { data: records.map((r) => r.data), ids: records.map((r) => r.id) });
  expect(r.status).toBe(201);
});

describe('get_one', () => {
  test('by id', async () => {
    const r = await post('get_one', { filters: { id: 'r03' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: 'r03', user_id: 3, content: 'rocket' });
  });

  test('by an indexed field answers the first match in id order', async () => {
    const r = await post('get_one', { filters: { content: 'heart' } });
    expect(r.body.data.id).toBe('r02');
  });

  test('fields picks what comes back; id always does', async () => {
    const r = await post('get_one', { filters: { id: 'r04' }, fields: ['user_name'] });
    expect(r.body.data).toEqual({ id: 'r04', user_name: 'user4' });
  });

  test('404 not_found when nothing matches', async () => {
    const r = await post('get_one', { filters: { id: 'nope' } });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 'error', data: { error: 'not_found', model: 'reaction' } });
  });

  test('filters are required', async () => {
    const r = await post('get_one', {});
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_request', details: [{ path: 'filters' }] });
  });

  test('fields naming an unknown field is 400 unknown_field', async () => {
    const r = await post('get_one', { filters: { id: 'r01' }, fields: ['nope'] });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('unknown_field');
  });
});

describe('list filters', () => {
  test.each([
    [{}, 12],
    [{ content: '+1' }, 4],
    [{ content: ['+1', 'heart'] }, 8],
    [{ user_id: { $gt: 10 } }, 2],
    [{ user_id: { $gte: 10, $lt: 12 } }, 2],
    [{ user_id: { $between: [3, 5] } }, 3],
    [{ user_id: { $in: [1, 2, 99] } }, 2],
    [{ user_id: { $nin: [1, 2] } }, 10],
    [{ content: { $ne: '+1' } }, 8],
    [{ content: { $begins_with: 'r' } }, 4],
    [{ content: { $contains: 'ear' } }, 4],
    [{ user_name: null }, 6],
    [{ user_name: { $exists: true } }, 6],
    [{ user_name: { $exists: false } }, 6],
    // Matches nothing; it once compiled to a key-attribute condition DynamoDB refuses (a 500).
    [{ $not: {} }, 0],
    [{ $not: { $or: [{}, { content: '+1' }] } }, 0],
    [{ user_name: { $ne: null } }, 6],
    [{ $or: [{ user_id: 1 }, { content: 'rocket' }] }, 5],
    [{ $and: [{ content: 'heart' }, { user_id: { $lt: 6 } }] }, 2],
    [{ $not: { content: 'heart' } }, 8],
    [{ content: { $not: { $in: ['+1', 'heart'] } } }, 4],
    [{ id: { $gte: 'r10' } }, 3],
    [{ id: { $begins_with: 'r0' } }, 9],
    [{ _version: 1 }, 12],
  ])('%j matches %i', async (filters, expected) => {
    const r = await post('list', { filters });
    expect(r.status).toBe(200);
    expect(r.body.data.items).toHaveLength(expected);
    const count = await post('count', { filters });
    expect(count.body.data.count).toBe(expected);
  });

  test('$ne and $nin keep records whose field is missing', async () => {
    const ne = await post('list', { filters: { user_name: { $ne: 'user2' } } });
    expect(ne.body.data.items).toHaveLength(11);
    expect(ids(ne)).toContain('r01'); // r01 has no user_name
    const nin = await post('list', { filters: { user_name: { $nin: ['user2', 'user4'] } } });
    expect(nin.body.data.items).toHaveLength(10);
    expect(ids(nin)).toContain('r03');
  });
});

describe('list ordering and paging', () => {
  test('default order is id ascending; -id descends', async () => {
    expect(ids(await post('list', {}))).toEqual(records.map((r) => r.id));
    expect(ids(await post('list', { order_by: '-id' }))).toEqual(records.map((r) => r.id).reverse());
  });

  test('ordering by an indexed field, ties broken by id', async () => {
    const byContent = ids(await post('list', { order_by: 'content' }));
    expect(byContent).toEqual(['r01', 'r04', 'r07', 'r10', 'r02', 'r05', 'r08', 'r11', 'r03', 'r06', 'r09', 'r12']);
    const byUser = ids(await post('list', { order_by: ['-user_id'], filters: { user_id: { $lte: 4 } } }));
    expect(byUser).toEqual(['r04', 'r03', 'r02', 'r01']);
  });

  test('ordering by a field that is not indexed is 400 invalid_order_by', async () => {
    const r = await post('list', { order_by: 'user_name' });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_order_by', sortable: ['id', 'user_id', 'content'] });
  });

  test('pages through every record exactly once, in order, then next_cursor is null', async () => {
    for (const order_by of ['id', '-id', 'content', '-user_id']) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const r = await post('list', { order_by, limit: 5, ...(cursor ? { cursor } : {}) });
        expect(r.status).toBe(200);
        seen.push(...ids(r));
        cursor = r.body.data.next_cursor ?? undefined;
        pages += 1;
      } while (cursor);
      const all = ids(await post('list', { order_by }));
      expect(seen).toEqual(all);
      expect(pages).toBe(3);
    }
  });

  test('a filtered listing pages too', async () => {
    const first = await post('list', { filters: { content: { $ne: 'rocket' } }, limit: 3 });
    expect(ids(first)).toEqual(['r01', 'r02', 'r04']);
    const second = await post('list', { filters: { content: { $ne: 'rocket' } }, limit: 3, cursor: first.body.data.next_cursor });
    expect(ids(second)).toEqual(['r05', 'r07', 'r08']);
  });

  test('a cursor edited by hand, or used with other filters, order or model, is 400 invalid_cursor', async () => {
    const first = await post('list', { limit: 2 });
    const cursor: string = first.body.data.next_cursor;
    const [payload, mac] = cursor.split('.');
    const edited = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('r02', 'r09')).toString('base64url');
    for (const body of [
      { limit: 2, cursor: `${edited}.${mac}` },
      { limit: 2, cursor: 'garbage' },
      { limit: 2, cursor: `${payload}.` },
      { limit: 2, cursor, filters: { content: '+1' } },
      { limit: 2, cursor, order_by: '-id' },
    ]) {
      const r = await post('list', body);
      expect(r.status).toBe(400);
      expect(r.body.data.error).toBe('invalid_cursor');
    }
  });

  test('limit is 1..1000', async () => {
    for (const limit of [0, 1001, 2.5, '10']) {
      const r = await post('list', { limit });
      expect(r.status).toBe(400);
      expect(r.body.data).toMatchObject({ error: 'invalid_request', details: [{ path: 'limit' }] });
    }
  });

  test('a list without a body lists everything', async () => {
    const r = await api.request('POST', '/api/db/reaction/list');
    expect(r.status).toBe(200);
    expect(r.body.data.items).toHaveLength(12);
  });
});

describe('models', () => {
  test('lists reaction with its exact JSON Schema and sortable fields', async () => {
    const r = await api.get('/api/db/models');
    expect(r.status).toBe(200);
    const reaction = r.body.data.models.find((m: { name: string }) => m.name === 'reaction');
    expect(reaction.schema).toEqual({
      type: 'object',
      properties: { user_id: { type: 'number' }, user_name: { type: 'string' }, content: { type: 'string' } },
      required: ['user_id', 'content'],
      additionalProperties: false,
    });
    expect(reaction.sortable).toEqual(['id', 'user_id', 'content']);
  });
});
