import { httpHandler } from '../../../../shared/http/middleware';
import { call, echo, request } from '../../../support/http-chain';

const DELETE_KEY = 'POST /api/db/{model_name}/delete';
const UPDATE_KEY = 'POST /api/db/{model_name}/update';
const saved = { ...process.env };
beforeEach(() => {
  process.env.API_TOKENS = JSON.stringify({ writer: ['read', 'write'], root: ['read', 'write', 'admin'] });
});
afterEach(() => {
  process.env = { ...saved };
});

test('the caller is settled before the body is read: a stranger with a broken body is 401, not 400', async () => {
  const r = await call(httpHandler('update', echo), request('POST', '/api/db/reaction/update', {}, '{', UPDATE_KEY));
  expect(r.statusCode).toBe(401);
  expect(JSON.parse(r.body!).data.error).toBe('unauthorized');
});

test('a token without the route scope is 403 and the operation never runs', async () => {
  const operation = jest.fn(echo);
  const r = await call(httpHandler('delete', operation), request('POST', '/api/db/reaction/delete', { authorization: 'Bearer writer' }, '{}', DELETE_KEY));
  expect(r.statusCode).toBe(403);
  expect(JSON.parse(r.body!).data).toMatchObject({ error: 'forbidden', required_scope: 'admin' });
  expect(operation).not.toHaveBeenCalled();
});

test('allow_all in the body needs admin beyond the route scope, checked once the body is read', async () => {
  const body = JSON.stringify({ filters: {}, allow_all: true, values: { user_name: 'x' } });
  const operation = jest.fn(echo);
  const asWriter = await call(
    httpHandler('update', operation),
    request('POST', '/api/db/reaction/update', { authorization: 'Bearer writer' }, body, UPDATE_KEY),
  );
  expect(asWriter.statusCode).toBe(403);
  expect(JSON.parse(asWriter.body!).data).toMatchObject({ error: 'forbidden', required_scope: 'admin' });
  expect(operation).not.toHaveBeenCalled();
  const asRoot = await call(httpHandler('update', operation), request('POST', '/api/db/reaction/update', { authorization: 'Bearer root' }, body, UPDATE_KEY));
  expect(asRoot.statusCode).toBe(200);
  expect(operation).toHaveBeenCalledTimes(1);
});
