import { httpHandler } from '../../../shared/http/middleware';
import { IDEMPOTENCY_HEADER } from '../../../shared/idempotency/middleware';
import { LIMITS } from '../../../shared/limits';
import { call, echo, request } from '../../support/http-chain';

// What the key means against a real engine (replays, mismatches, keys in flight) is
// test/integration/idempotency.test.ts; here, the keys refused before any of it.
const CREATE_KEY = 'POST /api/db/{model_name}/create';
const body = JSON.stringify({ data: { user_id: 1, content: 'x' } });

test.each([
  ['empty', ''],
  ['half-quoted', '"abc'],
  ['with a backslash', 'a\\b'],
  ['not ASCII', 'clé'],
  ['too long', 'k'.repeat(LIMITS.maxIdempotencyKeyLength + 1)],
])('an Idempotency-Key that is %s is 400 invalid_request and the operation never runs', async (_label, key) => {
  const operation = jest.fn(echo);
  const r = await call(httpHandler('create', operation), request('POST', '/api/db/reaction/create', { [IDEMPOTENCY_HEADER]: key }, body, CREATE_KEY));
  expect(r.statusCode).toBe(400);
  expect(JSON.parse(r.body!).data).toMatchObject({ error: 'invalid_request', details: [{ path: 'headers.idempotency-key' }] });
  expect(operation).not.toHaveBeenCalled();
});
