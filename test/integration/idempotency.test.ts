import { handler as updateHandler } from '../../functions/update/handler';
import { claimKey } from '../../shared/idempotency/keys';
import { LIMITS } from '../../shared/limits';
import { useApi } from '../support/api';
import { callWithBudget } from '../support/bulk-calls';
import { storedItems } from '../support/stored';

// Retries as clients send them: the same request again after a lost answer, with the same
// Idempotency-Key, and two at once. What is stored afterwards is what counts.
const TOKENS = { alice: ['read', 'write', 'admin'], bob: ['read', 'write', 'admin'] };
process.env.API_TOKENS = JSON.stringify(TOKENS);
const ALICE = { authorization: 'Bearer alice' };
const BOB = { authorization: 'Bearer bob' };
const api = useApi();
const reaction = { name: 'reaction', shards: 1 };
const post = (op: string, body: unknown, key?: string, who = ALICE) =>
  api.post(`/api/db/reaction/${op}`, body, { ...who, ...(key === undefined ? {} : { 'idempotency-key': key }) });
const storedWith = async (content: string) => (await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === content);

describe('Idempotency-Key on create, update and delete', () => {
  test('a create retried with its key answers the first answer again and stores one record', async () => {
    const body = { data: { user_id: 1, content: 'idem-create' } };
    const first = await post('create', body, 'k-create');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post('create', body, 'k-create');
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The service made the id: without the key the retry would have made a second record.
    expect(await storedWith('idem-create')).toHaveLength(1);
    const withoutKey = await post('create', body);
    expect(withoutKey.status).toBe(201);
    expect(await storedWith('idem-create')).toHaveLength(2);
  });

  test('a body that is not JSON is refused before its key is read: the key then runs the corrected request as its first', async () => {
    const broken = await post('create', '{"data": {"user_id": 1, "content": "idem-broken"', 'k-broken');
    expect(broken.status).toBe(400);
    expect(broken.body.data.error).toBe('malformed_json');
    const fixed = await post('create', { data: { user_id: 1, content: 'idem-broken' } }, 'k-broken');
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedWith('idem-broken')).toHaveLength(1);
  });

  test('the same key with another body is 422 and writes nothing', async () => {
    expect((await post('create', { data: { user_id: 2, content: 'idem-other' } }, 'k-other')).status).toBe(201);
    const other = await post('create', { data: { user_id: 3, content: 'idem-other' } }, 'k-other');
    expect(other.status).toBe(422);
    expect(other.body.data.error).toBe('idempotency_key_reused');
    expect(await storedWith('idem-other')).toHaveLength(1);
    // Another route is another request too.
    const elsewhere = await post('delete', { filters: { content: 'idem-other' } }, 'k-other');
    expect(elsewhere.body.data.error).toBe('idempotency_key_reused');
    expect(await storedWith('idem-other')).toHaveLength(1);
  });

  test('keys are kept per caller: the same key from another caller is another request', async () => {
    const body = { data: { user_id: 4, content: 'idem-callers' } };
    expect((await post('create', body, 'k-shared', ALICE)).status).toBe(201);
    const bob = await post('create', body, 'k-shared', BOB);
    expect(bob.status).toBe(201);
    expect(bob.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedWith('idem-callers')).toHaveLength(2);
  });

  test('an update retried with its key is applied once', async () => {
    await post('create', { id: 'idem-up', data: { user_id: 5, content: 'idem-up' } });
    const body = { filters: { id: 'idem-up' }, values: { user_name: 'once' } };
    const first = await post('update', body, 'k-up');
    const again = await post('update', body, 'k-up');
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    expect((await storedWith('idem-up'))[0]._version).toBe(2);
  });

  test('a delete retried with its key answers what the first one deleted', async () => {
    await post('create', {
      data: [
        { user_id: 6, content: 'idem-del' },
        { user_id: 7, content: 'idem-del' },
      ],
    });
    const body = { filters: { content: 'idem-del' }, allow_all: false };
    const first = await post('delete', body, 'k-del');
    expect(first.body.data.deleted).toBe(2);
    const again = await post('delete', body, 'k-del');
    expect(again.body.data.deleted).toBe(2);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  test('an error answer of the request itself is kept too: the retry gets the same 409, and nothing is written', async () => {
    await post('create', { id: 'idem-taken', data: { user_id: 8, content: 'idem-taken' } });
    const body = { id: 'idem-taken', data: { user_id: 9, content: 'idem-taken-2' } };
    const first = await post('create', body, 'k-taken');
    expect(first.status).toBe(409);
    const again = await post('create', body, 'k-taken');
    expect(again.status).toBe(409);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await storedWith('idem-taken-2')).toEqual([]);
  });

  test('requests racing on one key: one runs, the others replay it or are told it is still running; one record', async () => {
    const body = { data: { user_id: 10, content: 'idem-race' } };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('create', body, 'k-race')));
    const ran = answers.filter((a) => a.status === 201);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ran.map((a) => a.text)).size).toBe(1);
    for (const a of answers.filter((r) => r.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.data.error).toBe('idempotency_in_flight');
      expect(a.headers.get('retry-after')).toBe('1');
    }
    expect(await storedWith('idem-race')).toHaveLength(1);
  });

  test('an answer too large to keep still stops a second run: 409 idempotency_answer_not_kept, nothing written again', async () => {
    // 100 records of 4 KB answer about 420 KB, over what a key's item keeps (LIMITS.maxReplayedAnswerBytes).
    const data = Array.from({ length: LIMITS.maxCreateBatch }, (_, i) => ({ user_id: i, content: `idem-large-${'x'.repeat(4096)}` }));
    const first = await post('create', { data }, 'k-large');
    expect(first.status).toBe(201);
    expect(first.text.length).toBeGreaterThan(LIMITS.maxReplayedAnswerBytes);
    const again = await post('create', { data }, 'k-large');
    expect(again.status).toBe(409);
    expect(again.body.data).toMatchObject({ error: 'idempotency_answer_not_kept', first_status: 201 });
    expect(await storedWith(`idem-large-${'x'.repeat(4096)}`)).toHaveLength(LIMITS.maxCreateBatch);
  });

  test('a key that is too long or not a whole quoted string is 400', async () => {
    for (const key of ['x'.repeat(LIMITS.maxIdempotencyKeyLength + 1), '"unterminated']) {
      const r = await post('create', { data: { user_id: 11, content: 'idem-bad-key' } }, key);
      expect(r.status).toBe(400);
      expect(r.body.data.error).toBe('invalid_request');
    }
    expect((await post('create', { data: { user_id: 11, content: 'idem-bad-key' } }, '"quoted-key"')).status).toBe(201);
    expect(await storedWith('idem-bad-key')).toHaveLength(1);
  });
});

describe('a key whose run never answered', () => {
  test('is in flight until its lease (the function deadline) passes, then taken over with the same run', async () => {
    const first = await claimKey('caller', 'k-lease', 'fp', Date.now() + 60_000);
    expect(first.kind).toBe('claimed');
    expect((await claimKey('caller', 'k-lease', 'fp', Date.now() + 60_000)).kind).toBe('in_flight');
    // A run whose function was stopped: its lease lies in the past.
    const stopped = await claimKey('caller', 'k-stopped', 'fp', Date.now() - 1);
    const taken = await claimKey('caller', 'k-stopped', 'fp', Date.now() + 60_000);
    expect(taken).toMatchObject({ kind: 'claimed' });
    expect(taken.kind === 'claimed' && stopped.kind === 'claimed' && taken.run).toEqual(stopped.kind === 'claimed' && stopped.run);
    // Another request under that key is still another request.
    expect((await claimKey('caller', 'k-stopped', 'other-fp', Date.now() + 60_000)).kind).toBe('mismatch');
  });
});

describe('a bulk cursor sent twice', () => {
  test('writes no record twice: the second call finds them written by the same operation', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `idem-bulk-${String(i).padStart(3, '0')}`);
    await post('create', { data: ids.map((_, i) => ({ user_id: i, content: 'idem-bulk' })), ids });
    const body = { filters: { content: 'idem-bulk' }, values: { user_name: 'bulk' } };
    // No time to write: the answer is a cursor from the start of the operation. Its reads get the
    // one second before the calls are cut; on a loaded machine they may not fit, and the answer is
    // 503 database_unavailable, which wrote nothing (a clean-clone run under load): sent again then.
    let stopped = await callWithBudget(updateHandler, 'update', body, LIMITS.bulkStopBeforeDeadlineMs - 1, ALICE);
    for (let again = 0; again < 10 && stopped.status === 503; again++) {
      expect(stopped.body.data).toMatchObject({ error: 'database_unavailable' });
      expect(new Set((await storedWith('idem-bulk')).map((i) => i._version))).toEqual(new Set([1]));
      stopped = await callWithBudget(updateHandler, 'update', body, LIMITS.bulkStopBeforeDeadlineMs - 1, ALICE);
    }
    expect({ status: stopped.status, body: stopped.body.data }).toMatchObject({ status: 200, body: { updated: 0, complete: false } });
    const resumed = { ...body, cursor: stopped.body.data.next_cursor };
    const first = await post('update', resumed);
    expect(first.body.data).toMatchObject({ updated: 60, complete: true });
    // The client lost that answer and sends the same cursor again.
    const again = await post('update', resumed);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ updated: 60, complete: true });
    expect(new Set((await storedWith('idem-bulk')).map((i) => i._version))).toEqual(new Set([2]));
  });
});
