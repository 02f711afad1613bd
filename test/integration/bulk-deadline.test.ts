import { handler as createHandler } from '../../functions/create/handler';
import { handler as deleteHandler } from '../../functions/delete/handler';
import { handler as updateHandler } from '../../functions/update/handler';
import type { InitializeHandlerArguments } from '@smithy/types';
import { LIMITS } from '../../shared/limits';
import { db } from '../../shared/store/client';
import { writeAsAnotherWriter } from '../support/another-writer';
import { useApi } from '../support/api';
import { measureMs, secondsFor } from '../support/machine-speed';
import { callWithBudget as callAs, type Handler } from '../support/bulk-calls';
import { storedItems } from '../support/stored';

// The handlers are called as Lambda calls them, from no loopback address: a token is needed.
process.env.API_TOKENS = JSON.stringify({ root: ['read', 'write', 'admin'] });
const ROOT = { authorization: 'Bearer root' };
const api = useApi();
const reaction = { name: 'reaction', shards: 1 };
const N = 400;
/** What one full batch create takes on this machine now (beforeAll). */
let batchMs = 0;

async function seed(prefix: string, content: string) {
  for (let start = 0; start < N; start += LIMITS.maxCreateBatch) {
    const ids = Array.from({ length: LIMITS.maxCreateBatch }, (_, i) => `${prefix}-${String(start + i).padStart(4, '0')}`);
    const r = await api.post('/api/db/reaction/create', { data: ids.map((_, i) => ({ user_id: start + i, content })), ids }, ROOT);
    expect({ status: r.status, body: r.body }).toMatchObject({ status: 201 });
  }
}

/** A bulk call as Lambda makes it, with `budgetMs` left, as the root caller. */
const callWithBudget = (handler: Handler, op: string, body: Record<string, unknown>, budgetMs: number) => callAs(handler, op, body, budgetMs, ROOT);

/**
 * The first window of writes: every call reads what it matches before it writes, within the
 * reserve plus the window (the reserve less CALL_LIMITS.answerReserveMs, 1 s, before its calls are
 * cut). A loaded machine reads the 400 records in more than that (1.5 s at a load of 17 on DynamoDB
 * Local, a 503 there: issue 30 finding 10), so the window is twice that read, timed now, straight
 * against the engine; 25 ms when that is more.
 */
const firstWindow = async () => Math.max(25, Math.ceil(2 * (await measureMs(() => storedItems(reaction)))));

/** Goes on with next_cursor until complete, the window doubling each call so that few calls are needed. */
async function untilComplete(handler: Handler, op: string, body: Record<string, unknown>, firstCall?: Record<string, any>) {
  const answers: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  let cursor: string | undefined = firstCall?.next_cursor;
  let window = await firstWindow();
  for (let call = 0; call < 200; call++) {
    const r = await callWithBudget(handler, op, { ...body, ...(cursor ? { cursor } : {}) }, LIMITS.bulkStopBeforeDeadlineMs + window);
    expect({ call, window, ms: r.ms, status: r.status, body: r.body }).toMatchObject({ status: 200 });
    answers.push(r.body.data);
    if (r.body.data.complete) return answers;
    expect(typeof r.body.data.next_cursor).toBe('string');
    cursor = r.body.data.next_cursor;
    window *= 2;
  }
  throw new Error('never completed');
}

describe('bulk writes within the function deadline', () => {
  // A record no filter below matches: without it the first update's filter would match the whole
  // model, which takes allow_all (409 matches_all, test/integration/request-findings.test.ts).
  beforeAll(async () => {
    expect((await api.post('/api/db/reaction/create', { id: 'bystander', data: { user_id: 0, content: 'bystander' } }, ROOT)).status).toBe(201);
    // A full batch is one transaction of maxCreateBatch records: on a loaded machine it outlasts
    // the 3 s a call gets by default (a 503 seeding at a load of 19 on DynamoDB Local, issue 30
    // finding 10). A tenth of one, timed now, sizes what the functions get.
    const ids = Array.from({ length: LIMITS.maxCreateBatch / 10 }, (_, i) => `calibration-${i}`);
    batchMs =
      10 *
      (await measureMs(async () => {
        const r = await api.post('/api/db/reaction/create', { data: ids.map((_, i) => ({ user_id: i, content: 'calibration' })), ids }, ROOT);
        expect(r.status).toBe(201);
      }));
    api.giveTime(secondsFor(batchMs));
  }, 60_000);

  test('an update that cannot finish stops at a safe point, answers 200 with its counts, and goes on with next_cursor', async () => {
    await seed('bu', 'budget-up');
    const body = { filters: { content: 'budget-up' }, values: { user_name: 'done' } };
    // No time at all: nothing is written, and the cursor starts from the beginning. One record, as
    // its reads must fit in the second left before the calls are cut, however loaded the machine.
    const one = { ...body, filters: { ...body.filters, id: 'bu-0000' } };
    const none = await callWithBudget(updateHandler, 'update', one, LIMITS.bulkStopBeforeDeadlineMs - 1);
    expect({ status: none.status, ms: none.ms, body: none.body }).toMatchObject({ status: 200 });
    expect(none.body.data).toMatchObject({ updated: 0, skipped: 0, matched: 1, complete: false, next_cursor: expect.any(String) });
    expect((await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === 'budget-up' && i._version !== 1)).toEqual([]);

    const answers = await untilComplete(updateHandler, 'update', body);
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.at(-1)).toMatchObject({ complete: true, next_cursor: null });
    expect(answers.reduce((n, a) => n + a.updated, 0)).toBe(N);
    // Each record updated exactly once, although every one still matches the filter after it.
    const stored = (await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === 'budget-up');
    expect(stored).toHaveLength(N);
    expect(new Set(stored.map((i) => i._version))).toEqual(new Set([2]));
    expect(new Set(stored.map((i) => (i.d as { user_name: string }).user_name))).toEqual(new Set(['done']));
  }, 180_000);

  test('a delete that cannot finish leaves the rest untouched and finishes with the cursor', async () => {
    await seed('bd', 'budget-del');
    const body = { filters: { content: 'budget-del' } };
    const first = await callWithBudget(deleteHandler, 'delete', body, LIMITS.bulkStopBeforeDeadlineMs + (await firstWindow()));
    expect({ status: first.status, ms: first.ms, body: first.body }).toMatchObject({ status: 200 });
    expect(first.body.data.complete).toBe(false);
    const left = (await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === 'budget-del');
    expect(left).toHaveLength(N - first.body.data.deleted);
    // What was deleted is a prefix in id order: the cursor goes on after it.
    expect(left[0].id).toBe(`bd-${String(first.body.data.deleted).padStart(4, '0')}`);
    const answers = await untilComplete(deleteHandler, 'delete', body, first.body.data);
    expect(first.body.data.deleted + answers.reduce((n, a) => n + a.deleted, 0)).toBe(N);
    expect((await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === 'budget-del')).toEqual([]);
  }, 180_000);

  test('a cursor is bound to its request: other values or another operation get 400 invalid_cursor', async () => {
    await api.post('/api/db/reaction/create', { id: 'bc-1', data: { user_id: 1, content: 'budget-cursor' } }, ROOT);
    const body = { filters: { content: 'budget-cursor' }, values: { user_name: 'a' } };
    const r = await callWithBudget(updateHandler, 'update', body, LIMITS.bulkStopBeforeDeadlineMs);
    const cursor = r.body.data.next_cursor;
    const other = await api.post('/api/db/reaction/update', { ...body, values: { user_name: 'b' }, cursor }, ROOT);
    expect(other.status).toBe(400);
    expect(other.body.data.error).toBe('invalid_cursor');
    const asDelete = await api.post('/api/db/reaction/delete', { filters: body.filters, cursor }, ROOT);
    expect(asDelete.status).toBe(400);
    // A cursor of an allow_all request goes on only with allow_all, which takes admin: a write token cannot carry it on.
    const wide = await callWithBudget(updateHandler, 'update', { ...body, allow_all: true }, LIMITS.bulkStopBeforeDeadlineMs);
    const narrowed = await api.post('/api/db/reaction/update', { ...body, cursor: wide.body.data.next_cursor }, ROOT);
    expect(narrowed.body.data.error).toBe('invalid_cursor');
    const same = await api.post('/api/db/reaction/update', { ...body, cursor }, ROOT);
    expect(same.body.data).toEqual({ updated: 1, matched: 1, skipped: 0, complete: true, next_cursor: null });
  });

  test('a batch create is all or nothing whatever time is left: 201 with every record, 503 database_unavailable with none, outcome_unknown with all or none', async () => {
    const statuses = new Set<number>();
    // Plenty is four times what a batch takes on this machine now (beforeAll), 5 s at least.
    for (const [round, window] of [0, 2, 5, 10, 20, 40, 80, Math.max(5_000, Math.ceil(4 * batchMs))].entries()) {
      const ids = Array.from({ length: LIMITS.maxCreateBatch }, (_, i) => `bc-${round}-${String(i).padStart(3, '0')}`);
      const body = { data: ids.map((_, i) => ({ user_id: i, content: `batch-${round}` })), ids };
      const r = await callWithBudget(createHandler, 'create', body, LIMITS.bulkStopBeforeDeadlineMs + window);
      statuses.add(r.status ?? 0);
      const stored = (await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === `batch-${round}`);
      const answer = { round, status: r.status, error: r.body.data.error };
      if (r.status === 201) expect(stored).toHaveLength(LIMITS.maxCreateBatch);
      // Sent, cut at the cutoff, and not read back before it (a load of 19 on DynamoDB Local): it may have landed, whole.
      else if (answer.error === 'outcome_unknown') expect([0, LIMITS.maxCreateBatch]).toContain(stored.length);
      else {
        expect(answer).toEqual({ round, status: 503, error: 'database_unavailable' });
        expect(stored).toEqual([]);
      }
    }
    // No time at all refuses the batch; plenty of time stores it.
    expect(statuses).toEqual(new Set([503, 201]));
  }, 180_000);

  test('an update that another writer keeps beating until the cutoff answers 409 record_busy and has written nothing', async () => {
    await api.post(
      '/api/db/reaction/create',
      {
        ids: ['busy-1', 'busy-other'],
        data: [
          { user_id: 1, content: 'busy' },
          { user_id: 2, content: 'other' },
        ],
      },
      ROOT,
    );
    // Before each attempt of ours, another writer changes the record, so our conditional write always loses.
    let bumping = false;
    let beaten = 0;
    const name = 'anotherWriter';
    db().middlewareStack.add(
      (next) => async (args: InitializeHandlerArguments<any>) => {
        const input = args.input as { Key?: { sk?: string }; UpdateExpression?: string };
        if (!bumping && input.Key?.sk === 'busy-1' && input.UpdateExpression) {
          bumping = true;
          try {
            await writeAsAnotherWriter(input.Key as Record<string, string>, `another-writer-${beaten}`);
            beaten += 1;
          } finally {
            bumping = false;
          }
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const r = await callWithBudget(
        updateHandler,
        'update',
        // A condition beside the id: the update reads the record first. An update of an id alone
        // is one atomic write that contention cannot fail (update-operators.test.ts).
        { filters: { id: 'busy-1', content: 'busy' }, values: { user_name: 'mine' } },
        LIMITS.bulkStopBeforeDeadlineMs + 500,
      );
      expect(r.status).toBe(409);
      expect(r.body.data).toMatchObject({ error: 'record_busy', id: 'busy-1', updated: 0 });
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(beaten).toBeGreaterThan(0);
    const [stored] = (await storedItems(reaction)).filter((i) => i.id === 'busy-1');
    expect(stored.d).not.toHaveProperty('user_name');
    expect(stored._w).toMatch(/^another-writer-/);
  }, 30_000);
});
