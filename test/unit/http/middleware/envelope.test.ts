import { httpHandler } from '../../../../shared/http/middleware';
import { jsonResult } from '../../../../shared/answer/respond';
import { spyOnLog } from '../../../support/log';
import { call, request } from '../../../support/http-chain';

test('an answer an operation shares between requests is never changed by the chain', async () => {
  const shared = jsonResult(200, {});
  const handler = httpHandler('health', async () => shared);
  await call(handler, request('GET', '/api/db/health'));
  expect(shared.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
});

test('an unexpected error is the internal envelope, logged once', async () => {
  const log = spyOnLog('error');
  const r = await call(
    httpHandler('health', async () => {
      throw new TypeError('boom');
    }),
    request('GET', '/api/db/health'),
  );
  expect(r.statusCode).toBe(500);
  expect(JSON.parse(r.body!).data).toEqual({ error: 'internal' });
  expect(log).toHaveBeenCalledTimes(1);
  expect(JSON.parse(log.mock.calls[0][0])).toMatchObject({ level: 'error', code: 'internal', name: 'TypeError', message: 'boom' });
  log.mockRestore();
});
