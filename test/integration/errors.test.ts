import { useApi } from '../support/api';
import { storedItems } from '../support/stored';

const api = useApi();

test('an unknown model is 404 unknown_model with the available models', async () => {
  const r = await api.post('/api/db/nope/list', {});
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ status: 'error', data: { error: 'unknown_model', model: 'nope' } });
  expect(r.body.data.available).toContain('reaction');
});

test('an unknown route is 404 route_not_found in the envelope', async () => {
  const r = await api.get('/api/db/reaction/explode');
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ status: 'error', data: { error: 'route_not_found' } });
});

test('a wrong method is 405 with Allow', async () => {
  const r = await api.get('/api/db/reaction/list');
  expect(r.status).toBe(405);
  expect(r.headers.get('allow')).toBe('POST');
  expect(r.body.data).toMatchObject({ error: 'method_not_allowed', allowed: ['POST'] });
  const del = await api.request('DELETE', '/api/db/models');
  expect(del.status).toBe(405);
  expect(del.headers.get('allow')).toBe('GET');
});

test('malformed JSON is 400 malformed_json and stores nothing', async () => {
  for (const body of ['{bad', '{"data": {"user_id": 1, "content": "x"}', '[1,]', '{"a":1}{"b":2}']) {
    const r = await api.post('/api/db/reaction/create', body);
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('malformed_json');
  }
  expect(await storedItems({ name: 'reaction', shards: 1 })).toEqual([]);
});

// JSON.parse (and so middy's body parser) would keep the last of two values silently; which one a
// reader of the same bytes takes (a proxy, a log, a signature check) is its own choice (RFC 8259, 4).
test('a key sent twice with different values is 400 malformed_json and stores nothing', async () => {
  for (const body of ['{"id":"d1","id":"d2","data":{"user_id":1,"content":"x"}}', '{"data":{"user_id":1,"content":"x","user_id":2}}']) {
    const r = await api.post('/api/db/reaction/create', body);
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('malformed_json');
  }
  expect(await storedItems({ name: 'reaction', shards: 1 })).toEqual([]);
});

test('a body that is not an object, or has unknown properties, is 400 invalid_request', async () => {
  for (const body of ['[1]', '"text"', '42', '{"data":{"user_id":1,"content":"x"},"extra":1}']) {
    const r = await api.post('/api/db/reaction/create', body);
    expect(r.status).toBe(400);
    expect(r.body.data.error).toBe('invalid_request');
  }
  const r = await api.post('/api/db/reaction/list', { filter: {} });
  expect(r.body.data.details).toEqual([{ path: 'filter', message: 'unknown property "filter"' }]);
});

test('a body over 1 MB is 413 payload_too_large and stores nothing', async () => {
  const r = await api.post('/api/db/reaction/create', { data: { user_id: 1, content: 'x'.repeat(1_100_000) } });
  expect(r.status).toBe(413);
  expect(r.body.data.error).toBe('payload_too_large');
  expect(await storedItems({ name: 'reaction', shards: 1 })).toEqual([]);
});

test("a record over DynamoDB's 400 KB item size is 413, not a 500", async () => {
  const r = await api.post('/api/db/reaction/create', { data: { user_id: 1, content: 'y'.repeat(500_000) } });
  expect(r.status).toBe(413);
  expect(r.body.data.error).toBe('payload_too_large');
  expect(r.text).not.toMatch(/Exception|node_modules/);
  expect(await storedItems({ name: 'reaction', shards: 1 })).toEqual([]);
});

test('health answers ok with the latency', async () => {
  const r = await api.get('/api/db/health');
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'success', message: 'ok', data: { database: 'ok', latency_ms: expect.any(Number) } });
});
