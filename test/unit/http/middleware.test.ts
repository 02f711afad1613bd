import { lambdaContext, toEvent } from '../../../scripts/local/event';
import { docsOperation } from '../../../shared/docs/operations';
import { withDefaultRoute } from '../../../shared/http/fallback';
import { httpHandler, type Operation } from '../../../shared/http/middleware';
import { jsonResult } from '../../../shared/http/respond';
import { spyOnLog } from '../../support/log';

// The chain around an operation, without a database: each middleware's part of the answer.
// Public routes, or the event's route key would need a token; `list` is called as API Gateway names its key.
const LIST_KEY = 'POST /api/db/{model_name}/list';
const request = (method: string, rawPath: string, headers: Record<string, string> = {}, body = '', routeKey = `${method} ${rawPath}`) =>
  toEvent({ method, rawPath, rawQueryString: '', headers, httpVersion: '1.1', sourceIp: '127.0.0.1', port: 3000, scheme: 'http' }, Buffer.from(body), routeKey);
const call = (handler: ReturnType<typeof httpHandler>, event: ReturnType<typeof request>) => handler(event, lambdaContext('list', 'r1'));
const echo: Operation = async ({ headers, body }) => ({ data: { headers, body } });

afterEach(() => {
  delete process.env.CORS_ORIGINS;
});

test('request header names reach the operation lower-cased', async () => {
  const r = await call(httpHandler('health', echo), request('GET', '/api/db/health', { 'X-Self-ID': '1', Accept: 'application/json' }));
  expect(JSON.parse(r.body!).data.headers).toMatchObject({ 'x-self-id': '1', accept: 'application/json' });
});

test('every answer, errors included, carries the security headers, each under one lower-case name', async () => {
  for (const r of [
    await call(httpHandler('health', echo), request('GET', '/api/db/health')),
    await call(httpHandler('list', echo), request('POST', '/api/db/reaction/list', {}, '{', LIST_KEY)),
  ]) {
    expect(r.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'strict-transport-security': 'max-age=15552000; includeSubDomains',
      'referrer-policy': 'no-referrer',
    });
    expect(Object.keys(r.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(Object.values(r.headers).every((value) => typeof value === 'string' && value !== '')).toBe(true);
  }
});

test("an operation's own header wins over a package default: the docs page keeps its CSP", async () => {
  const r = await call(httpHandler('docs', docsOperation), request('GET', '/docs'));
  expect(r.headers['content-security-policy']).toContain("script-src 'self'");
  expect(r.headers['x-frame-options']).toBe('DENY');
});

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

describe('CORS', () => {
  const origin = { origin: 'https://app.example' };

  test("is off unless CORS_ORIGINS is set: no CORS header, and a preflight is the fallback's 405", async () => {
    const r = await call(httpHandler('health', echo), request('GET', '/api/db/health', origin));
    expect(Object.keys(r.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = { ...request('OPTIONS', '/api/db/health', { ...origin, 'access-control-request-method': 'GET' }), routeKey: '$default' };
    expect((await call(httpHandler('onebot', withDefaultRoute(echo)), preflight)).statusCode).toBe(405);
  });

  test('with CORS_ORIGINS, a listed origin may read answers and errors; others may not', async () => {
    process.env.CORS_ORIGINS = 'https://app.example, https://*.example.org';
    const handler = httpHandler('list', echo);
    const ok = await call(handler, request('POST', '/api/db/reaction/list', origin, '{}', LIST_KEY));
    expect(ok.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-expose-headers': 'retry-after, www-authenticate, idempotent-replayed',
      vary: 'Origin',
    });
    const refused = await call(handler, request('POST', '/api/db/reaction/list', { origin: 'https://a.example.org' }, '{', LIST_KEY));
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['access-control-allow-origin']).toBe('https://a.example.org');
    const stranger = await call(handler, request('POST', '/api/db/reaction/list', { origin: 'https://evil.example' }, '{}', LIST_KEY));
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('with CORS_ORIGINS, a preflight reaches $default and is answered 204 without a token', async () => {
    process.env.CORS_ORIGINS = 'https://app.example';
    const preflight = {
      ...request('OPTIONS', '/api/db/reaction/delete', {
        ...origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      }),
      routeKey: '$default',
    };
    const r = await call(httpHandler('onebot', withDefaultRoute(echo)), preflight);
    expect(r.statusCode).toBe(204);
    expect(r.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://app.example',
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': 'authorization, content-type, idempotency-key',
      'Access-Control-Max-Age': '7200',
    });
  });

  test('/openapi.json stays readable from any origin whatever CORS_ORIGINS says', async () => {
    process.env.CORS_ORIGINS = 'https://app.example';
    const { openApiOperation } = await import('../../../shared/openapi/operation');
    const r = await call(httpHandler('openapi', openApiOperation), request('GET', '/openapi.json', { origin: 'https://tool.example' }));
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});
