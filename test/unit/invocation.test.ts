import {
  bulkMayContinue,
  callSignal,
  currentCutoff,
  currentRequestId,
  detached,
  inTime,
  invocationDeadline,
  reserving,
  withCutoff,
  withDeadline,
  withinInvocation,
} from '../../shared/invocation';
import { CALL_LIMITS, LIMITS } from '../../shared/limits';

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

test('an invocation carries its request id and deadline; a cutoff or a reserve inside it keeps both; detached work has neither', async () => {
  const started = Date.now();
  const seen = await withinInvocation({ awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 }, async () => ({
    id: currentRequestId(),
    deadline: invocationDeadline(),
    cutoff: currentCutoff(),
    inner: await withCutoff(Date.now() + 60_000, async () => [currentRequestId(), invocationDeadline(), currentCutoff()]),
    reserved: await reserving(500, async () => [currentRequestId(), currentCutoff()]),
    detached: detached(() => [currentRequestId(), invocationDeadline(), currentCutoff()]),
  }));
  expect(seen.id).toBe('req-1');
  expect(seen.deadline).toBeGreaterThanOrEqual(started + 10_000);
  expect(seen.cutoff).toBe(seen.deadline! - CALL_LIMITS.answerReserveMs);
  // A later cutoff never extends the invocation's.
  expect(seen.inner).toEqual(['req-1', seen.deadline, seen.cutoff]);
  expect(seen.reserved).toEqual(['req-1', seen.cutoff! - 500]);
  expect(seen.detached).toEqual([undefined, undefined, undefined]);
  expect([currentRequestId(), invocationDeadline(), currentCutoff()]).toEqual([undefined, undefined, undefined]);
});

test('bulk writes may go on until LIMITS.bulkStopBeforeDeadlineMs before the deadline; without one, always', async () => {
  expect(bulkMayContinue()).toBe(true);
  const within = (remainingMs: number) => withinInvocation({ getRemainingTimeInMillis: () => remainingMs }, async () => bulkMayContinue());
  expect(await within(LIMITS.bulkStopBeforeDeadlineMs + 60_000)).toBe(true);
  expect(await within(LIMITS.bulkStopBeforeDeadlineMs)).toBe(false);
  expect(await within(0)).toBe(false);
});

test('withDeadline sets when the work stops starting bulk writes, without cutting its calls off', async () => {
  const [mayContinue, cutoff] = await withDeadline(Date.now(), async () => [bulkMayContinue(), currentCutoff()]);
  expect(mayContinue).toBe(false);
  expect(cutoff).toBeUndefined();
  expect(await withDeadline(Date.now() + LIMITS.bulkStopBeforeDeadlineMs + 60_000, async () => bulkMayContinue())).toBe(true);
});
