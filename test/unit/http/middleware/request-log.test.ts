import { lambdaContext, toEvent } from '../../../../scripts/local/event';
import { ApiError } from '../../../../shared/errors';
import type { Operation } from '../../../../shared/contract';
import { httpHandler } from '../../../../shared/http/middleware';
import { spyOnLog } from '../../../support/log';

// The request log (shared/http/middleware/request-log.ts) around an operation, without a database.
const TOKEN = 'tok-request-log-7f3a9c';
const LIST_KEY = 'POST /api/db/{model_name}/list';
const BODY = '{"filters":{"content":"secret-body-text"}}';

const listEvent = (headers: Record<string, string>, body = BODY) =>
  toEvent(
    {
      method: 'POST',
      rawPath: '/api/db/reaction/list',
      rawQueryString: '',
      headers: { 'content-type': 'application/json', ...headers },
      httpVersion: '1.1',
      sourceIp: '198.51.100.4',
      port: 443,
      scheme: 'https',
    },
    Buffer.from(body),
    LIST_KEY,
    { model_name: 'reaction' },
  );
const call = (operation: Operation, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  httpHandler('list', operation)(listEvent(headers), lambdaContext('list', 'req-42'));

const linesOf = (spy: jest.SpyInstance) => spy.mock.calls.map(([line]) => JSON.parse(line as string));
const ok: Operation = async () => ({ data: { records: [] } });

let info: jest.SpyInstance;
beforeEach(() => {
  process.env.API_TOKENS = JSON.stringify({ [TOKEN]: ['read', 'write'] });
  info = spyOnLog('info');
});
afterEach(() => {
  info.mockRestore();
  delete process.env.API_TOKENS;
});

test('a success is one info line: request id, method, route, model, status, latency, scopes, how the caller came and its subject digest', async () => {
  expect((await call(ok)).statusCode).toBe(200);
  expect(linesOf(info)).toEqual([
    {
      level: 'info',
      code: 'request',
      request_id: 'req-42',
      method: 'POST',
      route: LIST_KEY,
      model: 'reaction',
      status: 200,
      latency_ms: expect.any(Number),
      scopes: ['read', 'write'],
      via: 'token',
      subject: expect.stringMatching(/^token:[\w-]{32}$/),
    },
  ]);
});

test("a caller's subject and claims are personal data: the line holds the digest its idempotency keys are kept under, never the sub nor a claim value", async () => {
  process.env.API_TOKENS = JSON.stringify({ [TOKEN]: { scopes: ['read'], sub: 'ann@example.com', claims: { tenant: 'acme-tenant-77' } } });
  const lines: unknown[] = [];
  const operation: Operation = async (request) => {
    lines.push(request.caller!.subject);
    return { data: { records: [] } };
  };
  expect((await call(operation)).statusCode).toBe(200);
  const [line] = linesOf(info);
  expect(line.subject).toBe(lines[0]);
  expect(JSON.stringify(info.mock.calls)).not.toMatch(/ann@example\.com|acme-tenant-77/);
});

test.each([
  ['the operation refuses', async () => Promise.reject(new ApiError('invalid_request', 'no')), 400, 'invalid_request'],
  ['the operation fails unexpectedly', async () => Promise.reject(new Error(`boom ${TOKEN}`)), 500, 'internal'],
] as const)('an error answer is logged too (%s): its status and stable code, never its message', async (_name, operation, status, code) => {
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    expect((await call(operation as Operation)).statusCode).toBe(status);
  } finally {
    error.mockRestore();
  }
  expect(linesOf(info)).toEqual([expect.objectContaining({ code: 'request', request_id: 'req-42', status, error: code, via: 'token' })]);
});

test('a refused caller is logged without scopes; the token it sent is in no line', async () => {
  expect((await call(ok, { authorization: 'Bearer not-a-known-token-5521' })).statusCode).toBe(401);
  const [line] = linesOf(info);
  expect(line).toMatchObject({ code: 'request', status: 401, error: 'unauthorized', model: 'reaction' });
  expect(line.scopes).toBeUndefined();
  expect(JSON.stringify(info.mock.calls)).not.toContain('not-a-known-token-5521');
});

test('no line at any level holds the token or the body', async () => {
  const debug = spyOnLog('debug');
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    await call(ok);
    await call(async () => Promise.reject(new ApiError('invalid_filter', `bad ${BODY}`)));
    const everything = JSON.stringify([...info.mock.calls, ...debug.mock.calls, ...error.mock.calls]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain('secret-body-text');
  } finally {
    error.mockRestore();
    debug.mockRestore();
  }
});

test('debug adds the body size and encoding, the answer size and whether it was a replay', async () => {
  const debug = spyOnLog('debug');
  try {
    await call(ok);
    expect(linesOf(debug)).toEqual([
      {
        level: 'debug',
        code: 'request_detail',
        request_id: 'req-42',
        body_bytes: Buffer.byteLength(BODY),
        body_encoding: 'text',
        answer_bytes: expect.any(Number),
        replayed: false,
      },
    ]);
  } finally {
    debug.mockRestore();
  }
});

test('an early answer (a CORS preflight, before any middleware after it runs) is logged too', async () => {
  process.env.CORS_ORIGINS = 'https://app.example';
  try {
    const preflight = toEvent(
      {
        method: 'OPTIONS',
        rawPath: '/api/db/reaction/delete',
        rawQueryString: '',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        httpVersion: '1.1',
        sourceIp: '198.51.100.4',
        port: 443,
        scheme: 'https',
      },
      Buffer.alloc(0),
      '$default',
    );
    const r = await httpHandler('onebot', ok)(preflight, lambdaContext('onebot', 'req-43'));
    expect(r.statusCode).toBe(204);
    expect(linesOf(info)).toEqual([expect.objectContaining({ code: 'request', request_id: 'req-43', method: 'OPTIONS', route: '$default', status: 204 })]);
  } finally {
    delete process.env.CORS_ORIGINS;
  }
});

test('at warn, no request line', async () => {
  process.env.LOG_LEVEL = 'warn';
  await call(ok);
  expect(info).not.toHaveBeenCalled();
});
