import { useApi } from '../support/api';
import { storedItems } from '../support/stored';

const api = useApi();
const post = (op: string, body: unknown) => api.post(`/api/db/reaction/${op}`, body);
const reaction = { name: 'reaction', shards: 1 };

async function seed(prefix: string, n: number, content = 'seed') {
  const r = await post('create', {
    data: Array.from({ length: n }, (_, i) => ({ user_id: i, content, user_name: `${prefix}${i}` })),
    ids: Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`),
  });
  expect(r.status).toBe(201);
}

describe('update', () => {
  beforeAll(() => seed('u', 5, 'up'));

  test('sets values on every match, bumps the version and answers the count', async () => {
    const r = await post('update', { filters: { content: 'up', user_id: { $lt: 3 } }, values: { user_name: 'renamed' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ updated: 3, matched: 3, skipped: 0, complete: true, next_cursor: null });
    const stored = (await storedItems(reaction)).filter((i) => String(i.id).startsWith('u-'));
    expect(stored.map((i) => (i.d as { user_name: string }).user_name)).toEqual(['renamed', 'renamed', 'renamed', 'u3', 'u4']);
    expect(stored.map((i) => i._version)).toEqual([2, 2, 2, 1, 1]);
    expect(stored[0]._updated_at).not.toBe(stored[0]._created_at);
  });

  test('null removes an optional field', async () => {
    const r = await post('update', { filters: { id: 'u-004' }, values: { user_name: null } });
    expect(r.body.data.updated).toBe(1);
    const got = await post('get_one', { filters: { id: 'u-004' } });
    expect(got.body.data).not.toHaveProperty('user_name');
  });

  test('an updated indexed field is found through its index and ordered by its new value', async () => {
    await post('update', { filters: { id: 'u-003' }, values: { content: 'aaa-first' } });
    const byIndex = await post('list', { filters: { content: 'aaa-first' } });
    expect(byIndex.body.data.items.map((i: { id: string }) => i.id)).toEqual(['u-003']);
    const ordered = await post('list', { order_by: 'content', limit: 1 });
    expect(ordered.body.data.items[0].id).toBe('u-003');
    expect((await post('count', { filters: { content: 'up' } })).body.data.count).toBe(4);
  });

  test('0 matches answers updated 0', async () => {
    const r = await post('update', { filters: { content: 'nothing-has-this' }, values: { user_name: 'x' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ updated: 0, matched: 0, skipped: 0, complete: true, next_cursor: null });
  });

  test('one invalid result means 422 for all and nothing written', async () => {
    const before = await storedItems(reaction);
    // removing a required field breaks every record; a wrong type breaks it too
    for (const values of [{ content: null }, { user_id: 'x' }, { extra: 1 }]) {
      const r = await post('update', { filters: { content: 'up' }, values });
      expect(r.status).toBe(422);
      expect(r.body.data.error).toBe('validation_error');
      expect(r.body.data.details.length).toBeGreaterThan(0);
    }
    expect(await storedItems(reaction)).toEqual(before);
  });

  test('values may not touch id or system fields; empty values are refused', async () => {
    const before = await storedItems(reaction);
    for (const values of [{ id: 'x' }, { _version: 9 }, { _created_at: 'x' }, {}]) {
      const r = await post('update', { filters: { content: 'up' }, values });
      expect(r.status).toBe(400);
      expect(r.body.data.error).toBe('invalid_request');
    }
    expect(await storedItems(reaction)).toEqual(before);
  });

  test('an empty filter is refused unless allow_all is true', async () => {
    const before = await storedItems(reaction);
    const r = await post('update', { filters: {}, values: { user_name: 'all' } });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('empty_filter');
    expect(await storedItems(reaction)).toEqual(before);
    const all = await post('update', { filters: {}, values: { user_name: 'all' }, allow_all: true });
    expect(all.body.data.updated).toBe(before.length);
  });

  test('more matches than max_affected is 409 and changes nothing', async () => {
    const before = await storedItems(reaction);
    const r = await post('update', { filters: { content: 'up' }, values: { user_name: 'capped' }, max_affected: 2 });
    expect(r.status).toBe(409);
    expect(r.body.data).toMatchObject({ error: 'too_many_matches', max_affected: 2 });
    expect(await storedItems(reaction)).toEqual(before);
    const ok = await post('update', { filters: { content: 'up' }, values: { user_name: 'capped' }, max_affected: 4 });
    expect(ok.body.data.updated).toBe(4);
  });

  test('filters and values are required', async () => {
    expect((await post('update', { values: { user_name: 'x' } })).body.data).toMatchObject({ error: 'invalid_request', details: [{ path: 'filters' }] });
    expect((await post('update', { filters: { id: 'u-000' } })).body.data).toMatchObject({ error: 'invalid_request', details: [{ path: 'values' }] });
  });
});

describe('delete', () => {
  beforeAll(() => seed('d', 6, 'del'));

  test('deletes the matches and answers the count', async () => {
    const r = await post('delete', { filters: { content: 'del', user_id: { $gte: 4 } } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ deleted: 2, matched: 2, skipped: 0, complete: true, next_cursor: null });
    const left = (await storedItems(reaction)).filter((i) => String(i.id).startsWith('d-')).map((i) => i.id);
    expect(left).toEqual(['d-000', 'd-001', 'd-002', 'd-003']);
  });

  test('guards: empty filter 400, max_affected 409, both change nothing', async () => {
    const before = await storedItems(reaction);
    expect((await post('delete', { filters: {} })).body.data.error).toBe('empty_filter');
    expect((await post('delete', { filters: {}, allow_all: false })).body.data.error).toBe('empty_filter');
    const capped = await post('delete', { filters: { content: 'del' }, max_affected: 3 });
    expect(capped.status).toBe(409);
    expect(capped.body.data.error).toBe('too_many_matches');
    expect(await storedItems(reaction)).toEqual(before);
  });

  test('max_affected must be a whole number within the ceiling', async () => {
    for (const max_affected of [-1, 10001, 1.5]) {
      const r = await post('delete', { filters: { content: 'del' }, max_affected });
      expect(r.status).toBe(400);
      expect(r.body.data.details[0].path).toBe('max_affected');
    }
  });

  test('allow_all deletes everything of the model', async () => {
    const r = await post('delete', { filters: {}, allow_all: true });
    expect(r.status).toBe(200);
    expect(await storedItems(reaction)).toEqual([]);
    expect((await post('count', {})).body.data.count).toBe(0);
  });
});
