import { useApi } from '../support/api';
import { tableSnapshot } from '../support/table-snapshot';

const api = useApi();
const post = (op: string, body: unknown) => api.post(`/api/db/reaction/${op}`, body);

describe("error messages say what is wrong, in the caller's terms", () => {
  test('an empty id is "must not be empty", and nothing about control characters', async () => {
    const r = await post('create', { id: '', data: { user_id: 1, content: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.data.details).toEqual([{ path: 'id', message: 'must not be empty' }]);
  });

  test('a big number where a string belongs is "received number", not an internal type', async () => {
    const r = await api.post('/api/db/reaction/create', '{"id": 18446744073709551617, "data": {"user_id": 1, "content": "x"}}');
    expect(r.status).toBe(400);
    expect(r.body.data.details).toEqual([{ path: 'id', message: 'expected string, received number' }]);
    expect(r.text).not.toContain('NumberValue');
  });

  test.each(['get_one', 'update', 'delete'])('%s without filters: "filters: required"', async (op) => {
    const r = await post(op, op === 'update' ? { values: { content: 'x' } } : {});
    expect(r.status).toBe(400);
    expect(r.body.data.details).toEqual([{ path: 'filters', message: 'required' }]);
    expect(r.body.message).toBe('Invalid request body: filters: required');
  });

  test('a create without data: "data: required"', async () => {
    const r = await post('create', {});
    expect(r.body.data.details).toEqual([{ path: 'data', message: 'required' }]);
  });

  test('a batch of 101 names the limit of 100, and nothing is stored', async () => {
    const before = await tableSnapshot();
    const r = await post('create', { data: Array.from({ length: 101 }, (_, i) => ({ user_id: i, content: 'x' })) });
    expect(r.status).toBe(400);
    expect(r.body.data.details).toEqual([{ path: 'data', message: 'holds 101 records; one request creates 1 to 100' }]);
    expect(await tableSnapshot()).toEqual(before);
  });

  test('a record with 60,000 unknown keys: a short 422 with the first 100 details and the total', async () => {
    const data: Record<string, unknown> = { user_id: 1, content: 'x' };
    for (let i = 0; i < 60_000; i++) data[`k${i}`] = 1;
    const r = await post('create', { data });
    expect(r.status).toBe(422);
    expect(r.body.data.details).toHaveLength(100);
    expect(r.body.data.details[0]).toEqual({ path: 'data.k0', message: 'unknown property "k0"' });
    expect(r.body.data.details_total).toBe(60_000);
    expect(r.text.length).toBeLessThan(20_000);
  });

  test('a short list of details is answered whole, without a total', async () => {
    const r = await post('create', { data: { user_id: 1, content: 'x', a: 1, b: 2 } });
    expect(r.body.data.details).toHaveLength(2);
    expect(r.body.data).not.toHaveProperty('details_total');
  });
});
