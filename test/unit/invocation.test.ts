import { callSignal, detached, inTime, reserving, withCutoff, withinInvocation } from '../../shared/invocation';
import { CALL_LIMITS } from '../../shared/limits';

const aborted = (signal: AbortSignal | undefined) =>
  new Promise<string>((resolve) => signal?.addEventListener('abort', () => resolve((signal.reason as Error).name), { once: true }));

test('outside any invocation a call has no cutoff; inside one its signal aborts at the cutoff', async () => {
  expect(inTime()).toEqual({});
  expect(callSignal()).toBeUndefined();
  const name = await withCutoff(Date.now() + 20, async () => aborted(inTime().abortSignal));
  expect(name).toBe('TimeoutError');
});

test('a nested cutoff never extends the enclosing one', async () => {
  const name = await withCutoff(Date.now() + 20, () => withCutoff(Date.now() + 3_600_000, async () => aborted(callSignal())));
  expect(name).toBe('TimeoutError');
});

test("an invocation's calls end the answer reserve before its timeout; a context without a clock sets none", async () => {
  const name = await withinInvocation({ getRemainingTimeInMillis: () => 1000 }, async () => aborted(callSignal()));
  expect(name).toBe('TimeoutError');
  expect(await withinInvocation(undefined, async () => inTime())).toEqual({});
});

test('a timer started in a request carries its cutoff; one started detached() does not', async () => {
  const [inherited, free] = await withCutoff(Date.now() - 1, async () =>
    Promise.all([
      new Promise((resolve) => setTimeout(() => resolve(inTime()), 1)),
      new Promise((resolve) => detached(() => setTimeout(() => resolve(inTime()), 1))),
    ]),
  );
  expect(inherited).toEqual({ abortSignal: expect.any(AbortSignal) });
  expect(free).toEqual({});
});

test('reserving() cuts the work off that long before the current cutoff, leaving the rest to what follows; without a cutoff it sets none', async () => {
  const [reserved, after] = await withCutoff(Date.now() + 3_600_000, async () => [
    await reserving(3_600_000 - 20, async () => aborted(callSignal())),
    inTime(),
  ]);
  expect(reserved).toBe('TimeoutError');
  expect((after as { abortSignal: AbortSignal }).abortSignal.aborted).toBe(false);
  expect(await reserving(1000, async () => inTime())).toEqual({});
});

test("a test run's TEST_CALL_TIMEOUT_MS lengthens a call's answer timeout, never shortens it; unset, the client's own holds", () => {
  expect(inTime()).not.toHaveProperty('requestTimeout');
  try {
    process.env.TEST_CALL_TIMEOUT_MS = '20000';
    expect(inTime()).toEqual({ requestTimeout: 20_000 });
    process.env.TEST_CALL_TIMEOUT_MS = '1';
    expect(inTime()).toEqual({ requestTimeout: CALL_LIMITS.requestTimeoutMs });
  } finally {
    delete process.env.TEST_CALL_TIMEOUT_MS;
  }
});

test('a cutoff that is not a whole millisecond still gives a signal (AbortSignal.timeout takes whole milliseconds only)', async () => {
  const name = await withCutoff(Date.now() + 20.5, async () => aborted(callSignal(10.25)));
  expect(name).toBe('TimeoutError');
});
