import fc from 'fast-check';
import { createClient, type RecordgateError } from '../../../client/src/index';
import { retryAfterMs, retryDelayMs } from '../../../client/src/retry';

/**
 * Which calls the client sends again, against a fetch stand-in that answers from a script: a
 * read or a keyed write is sent again after each 503, 429 or 409 idempotency_in_flight, up to its attempts, under the same key; a write without a key never.
 */
const STATUSES = [200, 400, 409, 429, 500, 503] as const;
type Status = (typeof STATUSES)[number];

function scripted(statuses: Status[]) {
  const sent: Array<{ url: string; key: string | null }> = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const status = statuses[sent.length] ?? 200;
    sent.push({ url: String(url), key: new Headers(init?.headers).get('idempotency-key') });
    const body =
      status === 200
        ? { status: 'success', message: 'ok', data: { count: 1, scanned: 1, updated: 1 } }
        : { status: 'error', message: 'no', data: { error: status === 409 ? 'idempotency_in_flight' : 'unavailable' } };
    return new Response(JSON.stringify(body), { status, headers: { 'retry-after': '0' } });
  };
  return { sent, fetch };
}

// The script's 409 is always idempotency_in_flight, which asks to be tried again like 429 and 503.
const retried = (status: Status) => status === 429 || status === 503 || status === 409;

test.each([
  ['a read', (c: ReturnType<typeof createClient>) => c.db.model('m').count()],
  ['a keyed write', (c: ReturnType<typeof createClient>) => c.db.model('m').update({ filters: { id: 'a' }, values: {} }, { idempotencyKey: 'k' })],
  ['a write with a generated key', (c: ReturnType<typeof createClient>) => c.db.model('m').update({ filters: { id: 'a' }, values: {} })],
])('%s is sent again while asked to, up to its attempts, under one key', async (_name, call) => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...STATUSES), { maxLength: 6 }), fc.integer({ min: 1, max: 4 }), async (statuses, attempts) => {
      const { sent, fetch } = scripted(statuses);
      const outcome = await call(createClient({ baseUrl: 'http://x', fetch, retry: { attempts } })).then(
        () => 200,
        (error: RecordgateError) => error.status,
      );
      // The reference: sent until an answer that is not retried, or the attempts are spent.
      let expected = 1;
      while (expected < attempts && expected <= statuses.length && retried(statuses[expected - 1]!)) expected++;
      expect(sent).toHaveLength(expected);
      expect(outcome).toBe(statuses[expected - 1] ?? 200);
      expect(new Set(sent.map((s) => s.key)).size).toBe(1);
    }),
    { numRuns: 200 },
  );
});

test('a write without a key is sent once, whatever it is answered', async () => {
  for (const status of STATUSES) {
    const { sent, fetch } = scripted([status]);
    await createClient({ baseUrl: 'http://x', fetch })
      .db.model('m')
      .delete({ filters: { id: 'a' } }, { idempotencyKey: false })
      .catch(() => undefined);
    expect(sent).toEqual([{ url: 'http://x/api/db/m/delete', key: null }]);
  }
});

test('Retry-After in seconds or as a date; the wait is what it asks plus up to a tenth, capped; without it, jittered backoff', () => {
  expect(retryAfterMs('3')).toBe(3000);
  expect(retryAfterMs('Thu, 01 Jan 1970 00:00:05 GMT', 1000)).toBe(4000);
  expect([retryAfterMs(null), retryAfterMs('soon')]).toEqual([undefined, undefined]);
  expect([retryDelayMs(1000, 1, 10_000, () => 0), retryDelayMs(1000, 1, 10_000, () => 0.999)]).toEqual([1000, 1099.9]);
  expect(retryDelayMs(60_000, 1, 10_000, () => 0)).toBe(10_000);
  expect([1, 2, 3].map((retry) => retryDelayMs(undefined, retry, 10_000, () => 1))).toEqual([100, 200, 400]);
});
