import { useApi } from '../support/api';
import { tableSnapshot } from '../support/table-snapshot';

const api = useApi();
const post = (op: string, body: unknown) => api.post(`/api/db/reaction/${op}`, body);

/** Unpaired surrogates are sent as JSON escapes (`"\ud800"`), exactly as a client would write them. */
describe('strings DynamoDB cannot store byte for byte (unpaired surrogates)', () => {
  beforeAll(async () => {
    expect((await post('create', { id: 's\ufffd', data: { user_id: 1, content: 'replacement' } })).status).toBe(201);
  });

  test.each([
    ['an id', { id: 's\ud800', data: { user_id: 2, content: 'x' } }, 'id'],
    ['a low half alone', { id: 's\udfff', data: { user_id: 2, content: 'x' } }, 'id'],
    ['a value', { data: { user_id: 2, content: 'a\ud83d' } }, 'data.content'],
    ['a key', { data: { user_id: 2, content: 'x', 'k\udc00': 1 } }, 'data.k\udc00'],
    [
      'a batch id',
      {
        data: [
          { user_id: 2, content: 'x' },
          { user_id: 3, content: 'y' },
        ],
        ids: ['ok-1', '\ud800x'],
      },
      'ids.1',
    ],
  ])('create with %s: 422 with its path, nothing stored', async (_, body, path) => {
    const before = await tableSnapshot();
    const r = await post('create', body);
    expect(r.status).toBe(422);
    expect(r.body.data).toMatchObject({ error: 'validation_error', details: [{ path }] });
    expect(await tableSnapshot()).toEqual(before);
  });

  test.each(['get_one', 'count', 'list', 'update', 'delete'])('%s with one in a filter: 400 invalid_filter with its path', async (op) => {
    const before = await tableSnapshot();
    const r = await post(op, { filters: { id: 's\udfff' }, ...(op === 'update' ? { values: { content: 'changed' } } : {}) });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_filter', path: 'filters.id', details: [{ path: 'filters.id' }] });
    expect(await tableSnapshot()).toEqual(before);
  });

  test('update with one in values: 422, the record unchanged', async () => {
    const before = await tableSnapshot();
    const r = await post('update', { filters: { id: 's\ufffd' }, values: { content: '\udbff' } });
    expect(r.status).toBe(422);
    expect(r.body.data).toMatchObject({ error: 'validation_error', details: [{ path: 'values.content' }] });
    expect(await tableSnapshot()).toEqual(before);
  });

  test('no alias: the U+FFFD record is only found by its own id', async () => {
    expect((await post('get_one', { filters: { id: 's\ufffd' } })).body.data.content).toBe('replacement');
    expect((await post('count', { filters: { content: 'replacement' } })).body.data.count).toBe(1);
  });

  test('paired surrogates (emoji) are whole characters and still work', async () => {
    const r = await post('create', { id: 's\ud83d\ude00', data: { user_id: 4, content: '\ud83d\udc4d' } });
    expect(r.status).toBe(201);
    expect((await post('get_one', { filters: { id: 's😀' } })).body.data.content).toBe('👍');
  });
});
