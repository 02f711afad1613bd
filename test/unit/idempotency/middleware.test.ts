import type { ApiRequest } from '../../../shared/contract';
import { ApiError } from '../../../shared/errors';
import { httpHandler } from '../../../shared/http/middleware';
import { claimKey, keepAnswer, keepPlan, leaveUnknown, releaseKey, type Claim } from '../../../shared/idempotency/keys';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../../../shared/idempotency/middleware';
import { LIMITS } from '../../../shared/limits';
import { OutcomeUnknown } from '../../../shared/store/errors';
import { call, echo, request } from '../../support/http-chain';
import { spyOnLog } from '../../support/log';

// The middleware's own decisions, with the key store (shared/idempotency/keys.ts) replaced: what
// it claims, replays, keeps and gives back for each answer. What the keys do in a real table
// (leases, take-overs, plans, answers too large to keep) is test/integration/idempotency.test.ts.
jest.mock('../../../shared/idempotency/keys');
const claim = jest.mocked(claimKey);
const keep = jest.mocked(keepAnswer);
const release = jest.mocked(releaseKey);
const unknown = jest.mocked(leaveUnknown);

const CREATE_KEY = 'POST /api/db/{model_name}/create';
const body = JSON.stringify({ data: { user_id: 1, content: 'x' } });
const run = { operation: 'op-1', since: 1_700_000_000_000 };
const claimed: Claim = { kind: 'claimed', token: 'tok-1', run };
const send = (operation: typeof echo, key = 'k-1', sent = body) =>
  call(httpHandler('create', operation), request('POST', '/api/db/reaction/create', { [IDEMPOTENCY_HEADER]: key }, sent, CREATE_KEY));
const errorOf = (r: { body?: string }) => JSON.parse(r.body!).data;

beforeEach(() => {
  jest.resetAllMocks();
  delete process.env.API_TOKENS;
});

test.each([
  ['empty', ''],
  ['half-quoted', '"abc'],
  ['with a backslash', 'a\\b'],
  ['not ASCII', 'clé'],
  ['too long', 'k'.repeat(LIMITS.maxIdempotencyKeyLength + 1)],
])('an Idempotency-Key that is %s is 400 invalid_request: the key is never claimed and the operation never runs', async (_label, key) => {
  const operation = jest.fn(echo);
  const r = await send(operation, key);
  expect(r.statusCode).toBe(400);
  expect(errorOf(r)).toMatchObject({ error: 'invalid_request', details: [{ path: 'headers.idempotency-key' }] });
  expect(operation).not.toHaveBeenCalled();
  expect(claim).not.toHaveBeenCalled();
});

test('without a key nothing is claimed or kept', async () => {
  const r = await call(httpHandler('create', echo), request('POST', '/api/db/reaction/create', {}, body, CREATE_KEY));
  expect(r.statusCode).toBe(200);
  expect(claim).not.toHaveBeenCalled();
  expect(keep).not.toHaveBeenCalled();
});

test("a claimed key runs the operation with the key's run, then keeps its answer under the key, held until the function's deadline", async () => {
  claim.mockResolvedValue(claimed);
  const operation = jest.fn(async (_request: ApiRequest) => ({ data: { id: 'r1' }, status: 201 }));
  const started = Date.now();
  const r = await send(operation, '"k-quoted"');
  expect(r.statusCode).toBe(201);
  expect(r.headers[REPLAYED_HEADER]).toBeUndefined();
  // A quoted key is the same key as its bare text, claimed for the caller (loopback in open mode) and this request's bytes.
  const [scope, key, fingerprint, leaseUntil] = claim.mock.calls[0];
  expect([scope, key]).toEqual(['loopback', 'k-quoted']);
  expect(fingerprint).toMatch(/^[\w-]{43}$/);
  expect(leaseUntil).toBeGreaterThan(started);
  expect(operation.mock.calls[0][0].keyRun).toMatchObject(run);
  const held = { scope: 'loopback', key: 'k-quoted', fingerprint, token: 'tok-1', run };
  expect(keep).toHaveBeenCalledWith(held, { status: 201, headers: expect.objectContaining({ 'content-type': expect.any(String) }), body: r.body });
  expect(release).not.toHaveBeenCalled();
});

test('the same request is the same fingerprint; another body is not', async () => {
  claim.mockResolvedValue(claimed);
  await send(echo);
  await send(echo);
  await send(echo, 'k-1', JSON.stringify({ data: { user_id: 2, content: 'x' } }));
  const [a, b, c] = claim.mock.calls.map((args) => args[2]);
  expect(a).toBe(b);
  expect(c).not.toBe(a);
});

test("the key's plan is kept through the key's run", async () => {
  claim.mockResolvedValue(claimed);
  await send(async ({ keyRun }) => {
    await keyRun!.keepPlan!(['a', 'b']);
    return { data: {} };
  });
  expect(jest.mocked(keepPlan)).toHaveBeenCalledWith(expect.objectContaining({ key: 'k-1', token: 'tok-1' }), ['a', 'b']);
});

test('a finished key replays its first answer, marked as a replay, without running the operation or keeping anything', async () => {
  const first = { status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"status":"success","message":"ok","data":{"id":"r1"}}' };
  claim.mockResolvedValue({ kind: 'done', answer: first, status: 201 });
  const operation = jest.fn(echo);
  const r = await send(operation);
  expect(r.statusCode).toBe(201);
  expect(r.body).toBe(first.body);
  expect(r.headers[REPLAYED_HEADER]).toBe('true');
  expect(operation).not.toHaveBeenCalled();
  expect(keep).not.toHaveBeenCalled();
});

test.each([
  [{ kind: 'mismatch' } as Claim, 422, 'idempotency_key_reused', undefined],
  [{ kind: 'in_flight' } as Claim, 409, 'idempotency_in_flight', '1'],
  [{ kind: 'done', status: 201 } as Claim, 409, 'idempotency_answer_not_kept', undefined],
])('a key that cannot run (%p) is %i %s and the operation never runs', async (refusal, status, code, retryAfter) => {
  claim.mockResolvedValue(refusal);
  const operation = jest.fn(echo);
  const r = await send(operation);
  expect(r.statusCode).toBe(status);
  expect(errorOf(r).error).toBe(code);
  expect(r.headers['retry-after']).toBe(retryAfter);
  expect(operation).not.toHaveBeenCalled();
  expect(keep).not.toHaveBeenCalled();
});

test('a 4xx answer is kept under the key like a success: the same request would be refused again', async () => {
  claim.mockResolvedValue(claimed);
  const r = await send(async () => Promise.reject(new ApiError('validation_error', 'no')));
  expect(r.statusCode).toBe(422);
  expect(keep).toHaveBeenCalledWith(expect.objectContaining({ token: 'tok-1' }), expect.objectContaining({ status: 422, body: r.body }));
  expect(release).not.toHaveBeenCalled();
});

test('a 5xx answer wrote nothing: the key is given back, so a retry runs afresh', async () => {
  claim.mockResolvedValue(claimed);
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const r = await send(async () => Promise.reject(new Error('boom')));
    expect(r.statusCode).toBe(500);
  } finally {
    error.mockRestore();
  }
  expect(release).toHaveBeenCalledWith(expect.objectContaining({ key: 'k-1', token: 'tok-1' }));
  expect(keep).not.toHaveBeenCalled();
});

test('outcome_unknown leaves the key to the retry with its run, neither kept nor given back', async () => {
  claim.mockResolvedValue(claimed);
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const r = await send(async () => Promise.reject(new OutcomeUnknown('r1', new Error('socket hang up'))));
    expect(r.statusCode).toBe(503);
  } finally {
    error.mockRestore();
  }
  expect(unknown).toHaveBeenCalledWith(expect.objectContaining({ token: 'tok-1', run }));
  expect(keep).not.toHaveBeenCalled();
  expect(release).not.toHaveBeenCalled();
});

test('a key that cannot be settled does not change the answer: the middleware gives up within LIMITS.idempotencySettleMs and logs it', async () => {
  claim.mockResolvedValue(claimed);
  keep.mockRejectedValue(new Error('database down'));
  // A moment shorter than the 3 s deployed, so the test does not wait it out.
  const shorter = jest.replaceProperty(LIMITS as { idempotencySettleMs: number }, 'idempotencySettleMs', 300);
  const warn = spyOnLog('warn');
  try {
    const r = await send(async () => ({ data: { id: 'r1' }, status: 201 }));
    expect(r.statusCode).toBe(201);
    expect(keep).toHaveBeenCalled();
    expect(warn.mock.calls.map(([line]) => JSON.parse(line as string).code)).toEqual(['idempotency_key_not_settled']);
  } finally {
    warn.mockRestore();
    shorter.restore();
  }
});
