import { useApi } from '../support/api';

// The table exists (the shared setup made it); then this file's server is pointed at a port
// where nothing listens, as if DynamoDB were unreachable.
const api = useApi();

beforeAll(() => {
  process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
});

test('health answers 503 database_unavailable with Retry-After', async () => {
  const r = await api.get('/api/db/health');
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toBeTruthy();
  expect(r.body).toMatchObject({ status: 'error', data: { error: 'database_unavailable' } });
});

test('a record operation answers 503 without leaking the SDK error', async () => {
  const r = await api.post('/api/db/reaction/count', {});
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toBeTruthy();
  expect(r.body.data.error).toBe('database_unavailable');
  expect(r.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.js/);
});
