import { httpHandler } from '../../../shared/http/middleware';
import { FUNCTION_DESCRIPTORS } from '../../../shared/manifest/functions';
import { call, echo, request } from '../../support/http-chain';

// The chain as a whole (shared/http/middleware.ts); each middleware's own part is tested beside
// it, in middleware/.
test('request header names reach the operation lower-cased', async () => {
  const r = await call(httpHandler('health', echo), request('GET', '/api/db/health', { 'X-Self-ID': '1', Accept: 'application/json' }));
  expect(JSON.parse(r.body!).data.headers).toMatchObject({ 'x-self-id': '1', accept: 'application/json' });
});

test("the $default function's operation gets only the requests meant for it: the routes only $default reaches, and its own keys; every other one is 404 or 405", async () => {
  const operation = jest.fn(echo);
  const handler = httpHandler('onebot', operation);
  const viaDefault = (method: string, path: string) => call(handler, request(method, path, { 'x-self-id': '1' }, '{}', '$default'));
  expect((await viaDefault('POST', '/onebot/v11/')).statusCode).toBe(200);
  expect((await call(handler, request('POST', '/onebot/v11/http', { 'x-self-id': '1' }, '{}'))).statusCode).toBe(200);
  expect(operation).toHaveBeenCalledTimes(2);
  const unknown = await viaDefault('POST', '/nowhere');
  expect([unknown.statusCode, JSON.parse(unknown.body!).data.error]).toEqual([404, 'route_not_found']);
  const wrongMethod = await viaDefault('GET', '/onebot/v11/');
  expect([wrongMethod.statusCode, wrongMethod.headers.allow]).toEqual([405, 'POST']);
  expect(operation).toHaveBeenCalledTimes(2);
});

test("the request carries the serving function's descriptor: an operation reads what its function is from it", async () => {
  const operation = jest.fn(echo);
  await call(httpHandler('health', operation), request('GET', '/api/db/health'));
  expect(operation.mock.calls[0][0].descriptor).toBe(FUNCTION_DESCRIPTORS.health);
});
