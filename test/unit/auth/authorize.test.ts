import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authenticate, authorizeScope } from '../../../shared/auth/authorize';
import { TokenConfigError } from '../../../shared/auth/tokens';
import type { ApiError } from '../../../shared/errors';

function event(routeKey: string, sourceIp: string, authorization?: string): APIGatewayProxyEventV2 {
  return {
    routeKey,
    headers: authorization ? { authorization } : {},
    requestContext: { http: { sourceIp } },
  } as unknown as APIGatewayProxyEventV2;
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('open mode (no token configured)', () => {
  beforeEach(() => {
    delete process.env.API_TOKENS;
    delete process.env.API_TOKENS_SECRET_ARN;
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  });

  test('a loopback caller locally gets every scope', async () => {
    const caller = await authenticate(event('POST /api/db/{model_name}/delete', '::ffff:127.0.0.1'));
    expect(caller.via).toBe('loopback');
    expect([...caller.scopes].sort()).toEqual(['admin', 'read', 'write']);
  });

  test('another address locally is refused', async () => {
    const error = await refusal(authenticate(event('POST /api/db/{model_name}/list', '192.168.0.7', 'Bearer anything')));
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toBe('Bearer');
  });

  test('in Lambda every protected request is refused, loopback or not', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'recordgate-list';
    const error = await refusal(authorizeScope(event('POST /api/db/{model_name}/list', '127.0.0.1'), 'read'));
    expect(error.code).toBe('unauthorized');
  });

  test('a public route needs nothing, even in Lambda', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'recordgate-health';
    await expect(authorizeScope(event('GET /api/db/health', '203.0.113.9'), 'public')).resolves.toBeUndefined();
  });
});

describe('with tokens', () => {
  beforeEach(() => {
    process.env.API_TOKENS = JSON.stringify({ reader: ['read'], writer: ['write'], root: ['read', 'write', 'admin'] });
  });

  test('a loopback caller still needs a token', async () => {
    const error = await refusal(authenticate(event('POST /api/db/{model_name}/list', '127.0.0.1')));
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toBe('Bearer');
  });

  test('an unknown token is 401 invalid_token', async () => {
    const error = await refusal(authenticate(event('POST /api/db/{model_name}/list', '127.0.0.1', 'Bearer nope')));
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  test("a token's entry gives the caller its subject and claims; the list form gives none", async () => {
    process.env.API_TOKENS = JSON.stringify({ reader: ['read'], ann: { scopes: ['read', 'write'], sub: 'u1', claims: { tenant: 'acme' } } });
    const ann = await authenticate(event('POST /api/db/{model_name}/list', '203.0.113.9', 'Bearer ann'));
    expect(ann).toMatchObject({ via: 'token', sub: 'u1', claims: { tenant: 'acme', sub: 'u1' }, scopes: new Set(['read', 'write']) });
    // Idempotency keys stay kept per token, whatever subject it names.
    expect(ann.subject).toMatch(/^token:/);
    expect(ann.subject).not.toContain('u1');
    const reader = await authenticate(event('POST /api/db/{model_name}/list', '203.0.113.9', 'Bearer reader'));
    expect(reader.sub).toBeUndefined();
    expect(reader.claims).toEqual({});
  });

  test('in Lambda a malformed entry refuses every request, naming its position and never its token', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'recordgate-list';
    process.env.API_TOKENS = JSON.stringify({ reader: ['read'], 'tok-9f2e': { scopes: ['read'], claims: { tenant: 42 } } });
    const error = await refusal(authenticate(event('POST /api/db/{model_name}/list', '203.0.113.9', 'Bearer reader')));
    expect(error).toBeInstanceOf(TokenConfigError);
    expect(error.message).toContain('API_TOKENS entry 2 of 2: claims.tenant');
    expect(error.message).not.toContain('tok-9f2e');
  });

  test('a missing scope is 403', async () => {
    const error = await refusal(authorizeScope(event('POST /api/db/{model_name}/delete', '127.0.0.1', 'Bearer writer'), 'admin'));
    expect(error.status).toBe(403);
    expect(error.code).toBe('forbidden');
    expect(error.extra).toEqual({ required_scope: 'admin' });
  });

  test('a rotated table is read again', async () => {
    await expect(authenticate(event('POST /api/db/{model_name}/list', '127.0.0.1', 'Bearer reader'))).resolves.toBeDefined();
    process.env.API_TOKENS = JSON.stringify({ fresh: ['read'] });
    const error = await refusal(authenticate(event('POST /api/db/{model_name}/list', '127.0.0.1', 'Bearer reader')));
    expect(error.code).toBe('unauthorized');
  });
});

describe('a JWT verified by API Gateway (jwtIssuer deployments)', () => {
  const withJwt = (routeKey: string, jwt: object): APIGatewayProxyEventV2 =>
    ({ routeKey, headers: {}, requestContext: { http: { sourceIp: '203.0.113.9' }, authorizer: { jwt } } }) as unknown as APIGatewayProxyEventV2;

  test("its prefixed scopes are the caller's scopes; API_TOKENS is not consulted", async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'recordgate-list';
    process.env.JWT_SCOPE_PREFIX = 'recordgate/';
    process.env.API_TOKENS = '{}';
    const caller = await authorizeScope(withJwt('POST /api/db/{model_name}/list', { scopes: ['recordgate/read', 'other/admin', 'recordgate/bogus'] }), 'read');
    expect(caller).toMatchObject({ scopes: new Set(['read']), via: 'jwt' });
  });

  test('callers are told apart by issuer and subject, never by their scopes: what their idempotency keys are kept under', async () => {
    process.env.JWT_SCOPE_PREFIX = 'recordgate/';
    const subjectOf = async (claims: object) =>
      (await authorizeScope(withJwt('POST /api/db/{model_name}/list', { scopes: ['recordgate/read'], claims }), 'read'))!.subject;
    const ann = await subjectOf({ iss: 'https://idp.example', sub: 'ann' });
    expect(await subjectOf({ iss: 'https://idp.example', sub: 'ann' })).toBe(ann);
    expect(await subjectOf({ iss: 'https://idp.example', sub: 'bob' })).not.toBe(ann);
    expect(await subjectOf({ iss: 'https://other.example', sub: 'ann' })).not.toBe(ann);
  });

  test("its subject and claims, as an HTTP API hands them to Lambda (every value a string), are the caller's; objects are left out", async () => {
    process.env.JWT_SCOPE_PREFIX = 'recordgate/';
    // requestContext.authorizer.jwt.claims as payload 2.0 carries them: numbers and arrays arrive as text.
    const claims = {
      iss: 'https://idp.example',
      sub: 'auth0|5fe4',
      tenant: 'acme',
      exp: '1612061676',
      groups: '[admin users]',
      org_id: 42,
      nested: { a: 'b' },
    };
    const caller = await authorizeScope(withJwt('POST /api/db/{model_name}/list', { scopes: ['recordgate/read'], claims }), 'read');
    expect(caller).toMatchObject({ via: 'jwt', sub: 'auth0|5fe4' });
    expect(caller!.claims).toEqual({ iss: 'https://idp.example', sub: 'auth0|5fe4', tenant: 'acme', exp: '1612061676', groups: '[admin users]', org_id: '42' });
    const anonymous = await authorizeScope(
      withJwt('POST /api/db/{model_name}/list', { scopes: ['recordgate/read'], claims: { iss: 'https://idp.example' } }),
      'read',
    );
    expect(anonymous!.sub).toBeUndefined();
  });

  test("a claim it lacks is absent, whatever its name: a rule's claim named like an Object property (constructor, toString) finds nothing", async () => {
    process.env.JWT_SCOPE_PREFIX = 'recordgate/';
    const caller = await authorizeScope(
      withJwt('POST /api/db/{model_name}/list', { scopes: ['recordgate/read'], claims: { sub: 'ann', __proto__: 'x' } }),
      'read',
    );
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) expect(caller!.claims[name]).toBeUndefined();
    process.env.API_TOKENS = JSON.stringify({ ann: { scopes: ['read'], sub: 'ann' } });
    const token = await authenticate(event('POST /api/db/{model_name}/list', '203.0.113.9', 'Bearer ann'));
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) expect(token.claims[name]).toBeUndefined();
  });

  test('the scope claim is used when API Gateway passes no scope list, and a missing scope is 403', async () => {
    process.env.JWT_SCOPE_PREFIX = 'recordgate/';
    const error = await refusal(
      authorizeScope(withJwt('POST /api/db/{model_name}/delete', { scopes: null, claims: { scope: 'recordgate/read recordgate/write' } }), 'admin'),
    );
    expect(error.code).toBe('forbidden');
    expect(error.extra).toEqual({ required_scope: 'admin' });
  });
});
