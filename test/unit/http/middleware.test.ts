import { httpHandler } from '../../../shared/http/middleware';
import { call, echo, request } from '../../support/http-chain';

// The chain as a whole (shared/http/middleware.ts); each middleware's own part is tested beside
// it, in middleware/.
test('request header names reach the operation lower-cased', async () => {
  const r = await call(httpHandler('health', echo), request('GET', '/api/db/health', { 'X-Self-ID': '1', Accept: 'application/json' }));
  expect(JSON.parse(r.body!).data.headers).toMatchObject({ 'x-self-id': '1', accept: 'application/json' });
});
