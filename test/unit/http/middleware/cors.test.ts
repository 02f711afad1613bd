import { httpHandler } from '../../../../shared/http/middleware';
import { call, echo, LIST_KEY, request } from '../../../support/http-chain';

afterEach(() => {
  delete process.env.CORS_ORIGINS;
});

describe('CORS', () => {
  const origin = { origin: 'https://app.example' };

  test("is off unless CORS_ORIGINS is set: no CORS header, and a preflight is the fallback's 405", async () => {
    const r = await call(httpHandler('health', echo), request('GET', '/api/db/health', origin));
    expect(Object.keys(r.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = { ...request('OPTIONS', '/api/db/health', { ...origin, 'access-control-request-method': 'GET' }), routeKey: '$default' };
    expect((await call(httpHandler('onebot', echo), preflight)).statusCode).toBe(405);
  });

  test('with CORS_ORIGINS, a listed origin may read answers and errors; others may not', async () => {
    process.env.CORS_ORIGINS = 'https://app.example, https://*.example.org';
    const handler = httpHandler('list', echo);
    const ok = await call(handler, request('POST', '/api/db/reaction/list', origin, '{}', LIST_KEY));
    expect(ok.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-expose-headers': 'retry-after, www-authenticate, idempotent-replayed, etag',
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
    const r = await call(httpHandler('onebot', echo), preflight);
    expect(r.statusCode).toBe(204);
    expect(r.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://app.example',
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': 'authorization, content-type, idempotency-key, if-match, if-none-match',
      'Access-Control-Max-Age': '7200',
    });
  });

  test('/openapi.json stays readable from any origin whatever CORS_ORIGINS says', async () => {
    process.env.CORS_ORIGINS = 'https://app.example';
    const { openApiOperation } = await import('../../../../shared/openapi/serve');
    const r = await call(httpHandler('openapi', openApiOperation), request('GET', '/openapi.json', { origin: 'https://tool.example' }));
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});
