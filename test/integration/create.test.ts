import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { useApi } from '../support/api';
import { storedItems } from '../support/stored';

const api = useApi();
const reaction = { name: 'reaction', shards: 1 };
const create = (body: unknown) => api.post('/api/db/reaction/create', body);

describe('create', () => {
  test('stores a record and answers it with a time-ordered id and system fields', async () => {
    const r = await create({ data: { user_id: 1669571, user_name: 'octocat', content: '+1' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'success', message: 'ok' });
    expect(r.body.data).toMatchObject({ user_id: 1669571, user_name: 'octocat', content: '+1', _version: 1 });
    expect(r.body.data.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Object.keys(r.body.data)).toEqual(['id', 'user_id', 'user_name', 'content', '_created_at', '_updated_at', '_version']);
    const stored = (await storedItems(reaction)).find((i) => i.id === r.body.data.id);
    expect(stored?.d).toEqual({ user_id: 1669571, user_name: 'octocat', content: '+1' });
  });

  test('service ids sort by creation time', async () => {
    const a = await create({ data: { user_id: 1, content: 'a' } });
    const b = await create({ data: { user_id: 1, content: 'b' } });
    expect(a.body.data.id < b.body.data.id).toBe(true);
  });

  test('a caller-given id is kept; creating it again is 409 and the stored record is unchanged', async () => {
    const first = await create({ id: 'issue-7-heart', data: { user_id: 2, content: 'heart' } });
    expect(first.status).toBe(201);
    expect(first.body.data.id).toBe('issue-7-heart');
    const again = await create({ id: 'issue-7-heart', data: { user_id: 3, content: 'rocket' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 'error', data: { error: 'conflict', ids: ['issue-7-heart'] } });
    const stored = (await storedItems(reaction)).find((i) => i.id === 'issue-7-heart');
    expect(stored?.d).toEqual({ user_id: 2, content: 'heart' });
    expect(stored?._version).toBe(1);
  });

  test('a batch of records with ids is created together', async () => {
    const r = await create({
      data: [
        { user_id: 10, content: 'eyes' },
        { user_id: 11, content: 'laugh' },
      ],
      ids: ['batch-a', 'batch-b'],
    });
    expect(r.status).toBe(201);
    expect(r.body.data.records.map((x: { id: string }) => x.id)).toEqual(['batch-a', 'batch-b']);
  });

  test('a batch with one existing id changes nothing and names the conflict', async () => {
    const before = await storedItems(reaction);
    const r = await create({
      data: [
        { user_id: 12, content: 'new' },
        { user_id: 13, content: 'clash' },
      ],
      ids: ['batch-new', 'batch-a'],
    });
    expect(r.status).toBe(409);
    expect(r.body.data).toMatchObject({ error: 'conflict', ids: ['batch-a'] });
    expect(await storedItems(reaction)).toEqual(before);
  });

  test('a batch that repeats an id is refused before writing', async () => {
    const before = await storedItems(reaction);
    const r = await create({
      data: [
        { user_id: 1, content: 'x' },
        { user_id: 2, content: 'y' },
      ],
      ids: ['dup', 'dup'],
    });
    expect(r.status).toBe(409);
    expect(await storedItems(reaction)).toEqual(before);
  });

  test('a batch holds at most 100 records', async () => {
    const r = await create({ data: Array.from({ length: 101 }, (_, i) => ({ user_id: i, content: 'x' })) });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_request');
    expect(r.body.data.details[0].path).toBe('data');
  });
});

describe('the reaction schema', () => {
  test.each([
    ['empty content', { user_id: 1, content: '' }],
    ['no user_name', { user_id: 1, content: '+1' }],
    ['user_id 0', { user_id: 0, content: '+1' }],
    ['negative user_id', { user_id: -5, content: '+1' }],
    ['fractional user_id', { user_id: 0.1, content: '+1' }],
    ['huge user_id', { user_id: 1e100, content: '+1' }],
  ])('accepts %s', async (_, data) => {
    const r = await create({ data });
    expect(r.status).toBe(201);
  });

  test.each([
    ['a numeric string user_id', { user_id: '1669571', content: '+1' }, 'data.user_id'],
    ['a missing user_id', { content: '+1' }, 'data.user_id'],
    ['null content', { user_id: 1, content: null }, 'data.content'],
    ['null user_name', { user_id: 1, content: 'x', user_name: null }, 'data.user_name'],
    ['a numeric content (YAML +1 pitfall)', { user_id: 1, content: 1 }, 'data.content'],
    ['an extra key', { user_id: 1, content: 'x', created: 'now' }, 'data.created'],
    ['an id inside data', { user_id: 1, content: 'x', id: 5 }, 'data.id'],
    ['a camelCase variant', { userId: 1, user_id: 1, content: 'x' }, 'data.userId'],
    ['a number DynamoDB cannot hold', { user_id: NumberValue.from('1e400'), content: 'x' }, 'data.user_id'],
    ['39 significant digits', { user_id: NumberValue.from('123456789012345678901234567890123456789'), content: 'x' }, 'data.user_id'],
  ])('refuses %s with 422 and stores nothing', async (_, data, path) => {
    const before = await storedItems(reaction);
    const r = await create({ data });
    expect(r.status).toBe(422);
    expect(r.body.data.error).toBe('validation_error');
    expect(r.body.data.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await storedItems(reaction)).toEqual(before);
  });

  test('a batch with one invalid record stores none and lists the problem by index', async () => {
    const before = await storedItems(reaction);
    const r = await create({
      data: [
        { user_id: 1, content: 'ok' },
        { user_id: 'x', content: 'bad' },
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.data.details).toEqual([{ path: 'data.1.user_id', message: expect.any(String) }]);
    expect(await storedItems(reaction)).toEqual(before);
  });
});

describe('exact round trips', () => {
  test('numbers keep every digit, in records and in filters', async () => {
    const body = '{"id":"big","data":{"user_id":18446744073709551617,"content":"+1"}}';
    const r = await create(body);
    expect(r.status).toBe(201);
    expect(r.text).toContain('"user_id":18446744073709551617');
    const small = await create({ id: 'tenth', data: { user_id: 0.1, content: '+1' } });
    expect(small.text).toContain('"user_id":0.1');
    const found = await api.post('/api/db/reaction/list', '{"filters":{"user_id":18446744073709551617}}');
    expect(found.body.data.items.map((i: { id: string }) => i.id)).toEqual(['big']);
    const neighbour = await api.post('/api/db/reaction/list', '{"filters":{"user_id":18446744073709551616}}');
    expect(neighbour.body.data.items).toEqual([]);
    const above = await api.post('/api/db/reaction/count', '{"filters":{"user_id":{"$gt":18446744073709551616}}}');
    expect(above.body.data.count).toBeGreaterThanOrEqual(1);
    const stored = (await storedItems(reaction)).find((i) => i.id === 'big') as { d: { user_id: NumberValue } };
    expect(String(stored.d.user_id)).toBe('18446744073709551617');
  });

  test('strings come back byte for byte: emoji, NUL, long text', async () => {
    const content = `👍🏽 café \u0000 nul ${'x'.repeat(5000)} \u{10FFFF}`;
    const r = await create({ id: 'strings', data: { user_id: 1, user_name: 'Zoë 🚀', content } });
    expect(r.status).toBe(201);
    const got = await api.post('/api/db/reaction/get_one', { filters: { id: 'strings' } });
    expect(got.body.data.content).toBe(content);
    expect(got.body.data.user_name).toBe('Zoë 🚀');
  });
});

describe('ids', () => {
  test.each([[''], ['a\u0000b'], ['line\nbreak'], ['x'.repeat(201)]])('%j is refused as an id', async (id) => {
    const r = await create({ id, data: { user_id: 1, content: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_request');
    expect(r.body.data.details).toContainEqual({ path: 'id', message: expect.any(String) });
  });

  test('id and ids must match the shape of data', async () => {
    expect((await create({ id: 'a', data: [{ user_id: 1, content: 'x' }] })).body.data.error).toBe('invalid_request');
    expect((await create({ ids: ['a'], data: { user_id: 1, content: 'x' } })).body.data.error).toBe('invalid_request');
    expect(
      (
        await create({
          ids: ['a'],
          data: [
            { user_id: 1, content: 'x' },
            { user_id: 2, content: 'y' },
          ],
        })
      ).body.data.error,
    ).toBe('invalid_request');
  });
});
