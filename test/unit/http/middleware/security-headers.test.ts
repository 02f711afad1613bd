import { docsOperation } from '../../../../shared/docs/serve';
import { httpHandler } from '../../../../shared/http/middleware';
import { call, echo, LIST_KEY, request } from '../../../support/http-chain';

test('every answer, errors included, carries the security headers', async () => {
  for (const r of [
    await call(httpHandler('health', echo), request('GET', '/api/db/health')),
    await call(httpHandler('list', echo), request('POST', '/api/db/reaction/list', {}, '{', LIST_KEY)),
  ]) {
    expect(r.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'strict-transport-security': 'max-age=15552000; includeSubDomains',
      'referrer-policy': 'no-referrer',
    });
  }
});

test("an operation's own header wins over a package default: the docs page keeps its CSP", async () => {
  const r = await call(httpHandler('docs', docsOperation), request('GET', '/docs'));
  expect(r.headers!['content-security-policy']).toContain("script-src 'self'");
  expect(r.headers!['x-frame-options']).toBe('DENY');
});
