import { toEvent } from '../../../../scripts/local/event';
import { lookUpModelsWith } from '../../../../shared/access/model-lookup';
import { httpHandler } from '../../../../shared/http/middleware';
import { findModel } from '../../../../shared/models/catalog';
import { call, echo, request } from '../../../support/http-chain';
import { bookmarkModel } from '../../../support/bookmark-model';

// A model whose owner rule keeps each caller to its own records: there, write deletes.
const bookmark = bookmarkModel();
const hiddenBookmark = bookmarkModel('secret_bookmark', 'hidden');
jest.mock('../../../../shared/models/catalog', () =>
  jest.requireActual('../../../support/catalog-with').catalogWith(['bookmark', 'secret_bookmark'], () => [bookmark, hiddenBookmark]),
);

// The chain finds models as a record function's operation gives it them (shared/api/record-operation.ts);
// these operations are stand-ins, so the test gives it the catalog itself.
lookUpModelsWith(findModel);

const DELETE_KEY = 'POST /api/db/{model_name}/delete';
const UPDATE_KEY = 'POST /api/db/{model_name}/update';
const TRANSACTION_KEY = 'POST /api/db/transaction';
const saved = { ...process.env };
beforeEach(() => {
  process.env.API_TOKENS = JSON.stringify({
    reader: ['read'],
    writer: ['read', 'write'],
    root: ['read', 'write', 'admin'],
    janitor: ['admin'],
    ann: { scopes: ['read', 'write'], sub: 'ann' },
  });
});
afterEach(() => {
  process.env = { ...saved };
});

const deleteOn = (model: string, token: string, body = '{"filters":{"id":"a"}}') =>
  toEvent(
    {
      method: 'POST',
      rawPath: `/api/db/${model}/delete`,
      rawQueryString: '',
      headers: { authorization: `Bearer ${token}` },
      httpVersion: '1.1',
      sourceIp: '127.0.0.1',
      port: 3000,
      scheme: 'http',
    },
    Buffer.from(body),
    DELETE_KEY,
    { model_name: model },
  );
const answerOf = (r: { statusCode?: number; body?: string }) => [r.statusCode, JSON.parse(r.body!).data.required_scope];

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

describe('delete: write on a model with an owner rule, admin elsewhere', () => {
  test('write reaches the operation on an owner model (the store keeps it to its own records); read is 403 naming write', async () => {
    const operation = jest.fn(echo);
    expect((await call(httpHandler('delete', operation), deleteOn('bookmark', 'ann'))).statusCode).toBe(200);
    expect((await call(httpHandler('delete', operation), deleteOn('bookmark', 'writer'))).statusCode).toBe(200);
    expect(answerOf(await call(httpHandler('delete', operation), deleteOn('bookmark', 'reader')))).toEqual([403, 'write']);
    expect(operation).toHaveBeenCalledTimes(2);
  });

  test('admin deletes on any model, even without write; a model without an owner rule, hidden or unknown is admin for every other caller, as before, before the body is read', async () => {
    const operation = jest.fn(echo);
    for (const model of ['bookmark', 'reaction']) expect((await call(httpHandler('delete', operation), deleteOn(model, 'janitor'))).statusCode).toBe(200);
    for (const model of ['reaction', 'secret_bookmark', 'no_such_model'])
      for (const token of ['reader', 'writer', 'ann'])
        expect(answerOf(await call(httpHandler('delete', operation), deleteOn(model, token, '{')))).toEqual([403, 'admin']);
    expect(operation).toHaveBeenCalledTimes(2);
  });

  test("a transaction's delete takes the delete route's scope for its model", async () => {
    const operation = jest.fn(echo);
    const transact = (token: string, operations: unknown[]) =>
      call(
        httpHandler('transaction', operation),
        request('POST', '/api/db/transaction', { authorization: `Bearer ${token}` }, JSON.stringify({ operations }), TRANSACTION_KEY),
      );
    expect((await transact('ann', [{ op: 'delete', model: 'bookmark', id: 'a' }])).statusCode).toBe(200);
    expect(
      answerOf(
        await transact('ann', [
          { op: 'delete', model: 'bookmark', id: 'a' },
          { op: 'delete', model: 'reaction', id: 'a' },
        ]),
      ),
    ).toEqual([403, 'admin']);
    expect(answerOf(await transact('ann', [{ op: 'delete', model: 'secret_bookmark', id: 'a' }]))).toEqual([403, 'admin']);
    expect(answerOf(await transact('ann', [{ op: 'delete', model: 7, id: 'a' }]))).toEqual([403, 'admin']);
    expect((await transact('root', [{ op: 'delete', model: 'reaction', id: 'a' }])).statusCode).toBe(200);
    expect(operation).toHaveBeenCalledTimes(2);
  });
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

test('allow_all on an owner model still takes admin: write deletes its own records one filter at a time, never a whole model', async () => {
  const operation = jest.fn(echo);
  const r = await call(httpHandler('delete', operation), deleteOn('bookmark', 'ann', '{"filters":{},"allow_all":true}'));
  expect(answerOf(r)).toEqual([403, 'admin']);
  expect(operation).not.toHaveBeenCalled();
});
