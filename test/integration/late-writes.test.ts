import { isDeepStrictEqual } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../shared/config';
import { againstArtifacts, useApi, type Reply } from '../support/api';
import { commandsSent } from '../support/commands-sent';
import { httpFramer } from '../support/http-frames';
import { measureMs } from '../support/machine-speed';
import { useSteerableProxy, type WriteRule } from '../support/steerable-proxy';
import { either, fromNth, isKeyItem, isRecord, touching } from '../support/write-rules';
import { engineClient, tableSnapshot } from '../support/table-snapshot';

// Writes whose answer the service never got: held in the network until after the SDK's answer
// timeout (and even after the function's answer), or applied with their answer lost and the
// retries refused. Whatever the service answered must stay true once every such write landed:
// database_unavailable means nothing was written, ever; a count says what changed, an `unknown`
// count what may have; a keyed retry applies the request once and keeps every other writer's
// change. What is stored is read from the engine itself, past the proxy, after the proxy
// delivered every held write (`drained`).
// The proxy first: against cdk.out (test/artifact/late-writes.test.ts runs this file there) the
// harness takes the engine's endpoint when it starts, and it must be the proxy's.
const proxy = useSteerableProxy();
const api = useApi();
const reaction = (op: string) => `/api/db/reaction/${op}`;

type Item = Record<string, any>;
type Data = { user_id: number; content: string; user_name?: string };

/** The reaction records as the engine holds them now, by id. */
async function stored(): Promise<Map<string, Item>> {
  const items = await tableSnapshot(engineClient(proxy.target));
  return new Map(items.filter((i) => String(i.pk).startsWith('reaction#')).map((i) => [String(i.id), i]));
}

const errorOf = (r: Reply): string | undefined => r.body?.data?.error;
/** An answer in a failure message: status, message and data (a cursor left out, being long and of no use there). */
const described = (r: Reply) => {
  const { next_cursor: _, ...data } = r.body?.data ?? {};
  return `${r.status} ${r.body?.message ?? r.text.slice(0, 200)} ${JSON.stringify(data)}`;
};

/**
 * Records the tests change, all made before the first test with the link healthy: the faults
 * take from the SDK's retry quota (timeouts most), after which a busy engine's hiccup on a
 * seeding call would not be retried. Called while the tests are collected; returns the ids.
 */
const seeds: Array<{ ids: string[]; data: (i: number) => Data }> = [];
const seeded = (ids: string[], data: (i: number) => Data) => {
  seeds.push({ ids, data });
  return ids;
};
beforeAll(async () => {
  for (const { ids, data } of seeds) {
    for (let i = 0; i < ids.length; i += 100) {
      const part = ids.slice(i, i + 100);
      const r = await api.post(reaction('create'), { ids: part, data: part.map((_, j) => data(i + j)) });
      expect(described(r)).toMatch(/^201 /);
    }
  }
}, 120_000);

async function until(condition: () => boolean, what: string, ms = 30_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ---- The contract, one request at a time, against what is stored once every write landed ----

/** A single create with its own id: what its answer allows to be stored. */
function createViolation(id: string, data: Data, r: Reply, now: Map<string, Item>): string | undefined {
  const item = now.get(id);
  const says = `create ${id} answered ${described(r)}`;
  if (r.status === 201) return item && isDeepStrictEqual(item.d, data) ? undefined : `${says} but stored ${JSON.stringify(item?.d)}`;
  if (r.status === 409) return item ? `${says} (not written by it) but it is stored` : undefined;
  if (r.status === 503 && errorOf(r) === 'database_unavailable') return item ? `${says} but it is stored` : undefined;
  if (r.status === 503 && errorOf(r) === 'outcome_unknown') return r.body.data.id === id ? undefined : `${says}: data.id does not name ${id}`;
  return `${says}: not an answer a create may give`;
}

/** A batch create: all or none stored, and all when answered 201, none when answered that nothing was written. */
function batchViolation(ids: string[], r: Reply, now: Map<string, Item>): string | undefined {
  const present = ids.filter((id) => now.has(id)).length;
  const says = `batch create ${ids[0]}.. answered ${described(r)} and ${present} of ${ids.length} are stored`;
  if (present !== 0 && present !== ids.length) return says;
  if (r.status === 201) return present === ids.length ? undefined : says;
  if (r.status === 409 || (r.status === 503 && errorOf(r) === 'database_unavailable')) return present === 0 ? undefined : says;
  if (r.status === 503 && errorOf(r) === 'outcome_unknown') return undefined;
  return `${says}: not an answer a create may give`;
}

/**
 * A bulk update or delete (`count` is `updated` or `deleted`): the records it changed lie
 * between its count and its count plus `unknown`, in a 200 and in a 503 outcome_unknown;
 * database_unavailable changed none.
 */
function bulkViolation(what: string, count: 'updated' | 'deleted', changed: number, r: Reply): string | undefined {
  const says = `${what} answered ${described(r)} and changed ${changed}`;
  const data = r.body?.data ?? {};
  const bounds = () => {
    const done = Number(data[count] ?? 0);
    const unknown = Number(data.unknown ?? 0);
    return done <= changed && changed <= done + unknown ? undefined : says;
  };
  if (r.status === 200) return bounds();
  if (r.status === 503 && errorOf(r) === 'database_unavailable') return changed === 0 ? undefined : says;
  if (r.status === 503 && errorOf(r) === 'outcome_unknown') return bounds();
  return `${says}: not an answer a ${count.replace(/d$/, '')} may give`;
}

const defined = (list: Array<string | undefined>) => list.filter((v): v is string => v !== undefined);

describe('the proxy itself', () => {
  test('its framer cuts a byte stream into whole messages, bodies by Content-Length or chunked, however the bytes arrive', () => {
    const messages: Array<[string, string]> = [];
    const feed = httpFramer((m) => messages.push([m.startLine, m.body.toString()]));
    const stream = Buffer.from(
      'POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n',
    );
    for (let at = 0; at < stream.length; at += 7) feed(stream.subarray(at, at + 7));
    expect(messages).toEqual([
      ['POST / HTTP/1.1', 'hello'],
      ['HTTP/1.1 200 OK', 'abcde'],
      ['GET / HTTP/1.1', ''],
    ]);
  });

  // The SDK as the service runs it, with a short answer timeout and no retry: its call fails, the write still lands.
  const shortClient = () =>
    DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: process.env.DYNAMODB_ENDPOINT,
        region: settings().AWS_REGION,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: 1,
        requestHandler: { requestTimeout: 300, throwOnRequestTimeout: true },
      }),
    );
  const put = (client: DynamoDBDocumentClient, sk: string) =>
    client.send(new PutCommand({ TableName: settings().TABLE_NAME, Item: { pk: 'proxy-self-test', sk } }));
  const engineHas = async (sk: string) =>
    (await engineClient(proxy.target).send(new GetCommand({ TableName: settings().TABLE_NAME, Key: { pk: 'proxy-self-test', sk }, ConsistentRead: true })))
      .Item !== undefined;

  test('a held write lands after its caller gave up; a lost answer belongs to an applied write; reads pass a slow link at once', async () => {
    const client = shortClient();
    const before = proxy.counts();
    await proxy.set({ slowWritesMs: 3000 });
    await expect(put(client, 'held')).rejects.toThrow();
    // A read through the proxy is not held: it passes the held write and does not see it yet.
    const read = await engineClient(process.env.DYNAMODB_ENDPOINT!).send(
      new GetCommand({ TableName: settings().TABLE_NAME, Key: { pk: 'proxy-self-test', sk: 'held' }, ConsistentRead: true }),
    );
    expect(read.Item).toBeUndefined();
    await proxy.drained();
    expect(await engineHas('held')).toBe(true);

    await proxy.set({ loseAnswers: (w) => w.keys.some((k) => k.sk === 'lost'), thenRefuse: true });
    await expect(put(client, 'lost')).rejects.toThrow();
    await proxy.drained();
    expect(await engineHas('lost')).toBe(true);
    // Refused from then on, until healed.
    await expect(put(client, 'refused')).rejects.toThrow(/ECONNREFUSED|ECONNRESET|socket/);
    await proxy.set('pass');
    await put(client, 'healed');
    expect(proxy.counts()).toEqual({ held: before.held + 1, lost: before.lost + 1 });
  });
});

describe('a write applied while its answer was lost and the retries were refused', () => {
  // The write lands, then the link is gone: the service cannot learn whether it landed.
  const lostThenRefused = (ids: string[]) => proxy.set({ loseAnswers: touching(ids), thenRefuse: true });

  seeded(['lr-up', 'lr-del'], (i) => ({ user_id: i, content: 'lost-refused' }));
  seeded(['held-up', 'held-del'], (i) => ({ user_id: i, content: 'held-refused' }));

  test('single create, batch create, update and delete: the answer stays true', async () => {
    const violations: string[] = [];
    const lost = proxy.counts().lost;

    const createData = { user_id: 1, content: 'lr-create' };
    await lostThenRefused(['lr-create']);
    const create = await api.post(reaction('create'), { id: 'lr-create', data: createData });
    await proxy.set('pass');

    const batch = ['lr-b0', 'lr-b1', 'lr-b2', 'lr-b3', 'lr-b4'];
    await lostThenRefused(batch);
    const batchCreate = await api.post(reaction('create'), { ids: batch, data: batch.map((_, i) => ({ user_id: i, content: 'lr-batch' })) });
    await proxy.set('pass');

    await lostThenRefused(['lr-up']);
    const update = await api.post(reaction('update'), { filters: { id: 'lr-up' }, values: { user_name: 'lr-changed' } });
    await proxy.set('pass');

    await lostThenRefused(['lr-del']);
    const remove = await api.post(reaction('delete'), { filters: { id: 'lr-del' } });
    await proxy.set('pass');

    await proxy.drained();
    // Each of the four writes was applied and its answer lost.
    expect(proxy.counts().lost - lost).toBeGreaterThanOrEqual(4);
    const now = await stored();
    violations.push(
      ...defined([
        createViolation('lr-create', createData, create, now),
        batchViolation(batch, batchCreate, now),
        bulkViolation('update lr-up', 'updated', now.get('lr-up')?.d.user_name === 'lr-changed' ? 1 : 0, update),
        bulkViolation('delete lr-del', 'deleted', now.has('lr-del') ? 0 : 1, remove),
      ]),
    );
    expect(violations).toEqual([]);
  }, 90_000);

  test('a first attempt held 6 s in the network while the retries were refused: the write lands after the answer, which allowed it', async () => {
    const createData = { user_id: 2, content: 'held-create' };
    const run = async (send: () => Promise<Reply>) => {
      const held = proxy.counts().held;
      await proxy.set({ slowWritesMs: 6000 });
      const answer = send();
      await until(() => proxy.counts().held > held, 'the write to be held');
      await proxy.set('refuse');
      const r = await answer;
      await proxy.set('pass');
      return r;
    };
    const create = await run(() => api.post(reaction('create'), { id: 'held-create', data: createData }));
    const update = await run(() => api.post(reaction('update'), { filters: { id: 'held-up' }, values: { user_name: 'held-changed' } }));
    const remove = await run(() => api.post(reaction('delete'), { filters: { id: 'held-del' } }));
    await proxy.drained();
    const now = await stored();
    expect(
      defined([
        createViolation('held-create', createData, create, now),
        bulkViolation('update held-up', 'updated', now.get('held-up')?.d.user_name === 'held-changed' ? 1 : 0, update),
        bulkViolation('delete held-del', 'deleted', now.has('held-del') ? 0 : 1, remove),
      ]),
    ).toEqual([]);
  }, 90_000);
});

describe('keyed retries after an unknown outcome, with another writer in between', () => {
  /** Sends a keyed request again until it is answered other than 503 or "still in flight" (Retry-After honoured), within `budgetMs`. */
  async function retryKeyed(op: string, body: unknown, key: string, budgetMs: number) {
    const end = Date.now() + budgetMs;
    const answers: Reply[] = [];
    for (;;) {
      const r = await api.post(reaction(op), body, { 'idempotency-key': key });
      answers.push(r);
      const inFlight = r.status === 409 && errorOf(r) === 'idempotency_in_flight';
      if ((r.status !== 503 && !inFlight) || Date.now() > end) return { last: r, answers };
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(r.headers.get('retry-after') ?? 1)));
    }
  }
  // A key whose run's outcome is unknown may stay claimed for that run's lease (the function's timeout).
  const AFTER_LEASE_MS = 30_000;
  const lostThenRefused = (rule: WriteRule) => proxy.set({ loseAnswers: rule, thenRefuse: true });

  seeded(['ku-late'], () => ({ user_id: 1, content: 'ku-late' }));
  const kdIds = seeded(['kd-late-0', 'kd-late-1', 'kd-late-2'], (i) => ({ user_id: i, content: 'kd-late' }));
  const kkIds = seeded(['kk-late-0', 'kk-late-1', 'kk-late-2'], (i) => ({ user_id: i, content: 'kk-late' }));

  test("update: the retry does not undo another writer's change made after the first run's write landed", async () => {
    const body = { filters: { id: 'ku-late' }, values: { user_name: 'A' } };
    await lostThenRefused(touching(['ku-late']));
    const first = await api.post(reaction('update'), body, { 'idempotency-key': 'ku-late-key' });
    await proxy.set('pass');
    expect(first.status).toBe(503);
    expect((await stored()).get('ku-late')?.d.user_name).toBe('A');
    const other = await api.post(reaction('update'), { filters: { id: 'ku-late' }, values: { user_name: 'B' } });
    expect(other.body.data).toMatchObject({ updated: 1 });
    const { last } = await retryKeyed('update', body, 'ku-late-key', AFTER_LEASE_MS);
    expect(described(last)).toMatch(/^200 /);
    // B's write came after this run's: no tag names what this run made.
    expect(last.headers.get('etag')).toBeNull();
    expect((await stored()).get('ku-late')?.d).toEqual({ user_id: 1, content: 'ku-late', user_name: 'B' });
  }, 90_000);

  seeded(['ki-late'], () => ({ user_id: 10, content: 'ki-late' }));
  test('an operator update ($inc): the keyed retry after its lost answer applies it once', async () => {
    const body = { filters: { id: 'ki-late' }, values: { $inc: { user_id: 1 }, $set: { user_name: 'inc' } } };
    await lostThenRefused(touching(['ki-late']));
    const first = await api.post(reaction('update'), body, { 'idempotency-key': 'ki-late-key' });
    await proxy.set('pass');
    await proxy.drained();
    expect(first.status).toBe(503);
    expect((await stored()).get('ki-late')?.d).toEqual({ user_id: 11, content: 'ki-late', user_name: 'inc' });
    const { last } = await retryKeyed('update', body, 'ki-late-key', AFTER_LEASE_MS);
    expect(described(last)).toMatch(/^200 /);
    expect((await stored()).get('ki-late')?.d).toEqual({ user_id: 11, content: 'ki-late', user_name: 'inc' });
    // The first run's write is still the record's last: its tag is the one get_one answers.
    expect(last.headers.get('etag')).toBe((await api.post(reaction('get_one'), { filters: { id: 'ki-late' } })).headers.get('etag'));
  }, 90_000);

  test('upsert: the keyed retry of an upsert that created the record says upserted: true, and counts its $inc once', async () => {
    const body = { filters: { id: 'kup-late' }, values: { $inc: { user_id: 1 }, $setOnInsert: { content: 'kup-late' } }, upsert: true };
    await lostThenRefused(touching(['kup-late']));
    const first = await api.post(reaction('update'), body, { 'idempotency-key': 'kup-late-key' });
    await proxy.set('pass');
    await proxy.drained();
    expect(described(first)).toMatch(/^503 /);
    expect((await stored()).get('kup-late')?.d).toEqual({ user_id: 1, content: 'kup-late' });
    const { last } = await retryKeyed('update', body, 'kup-late-key', AFTER_LEASE_MS);
    expect(described(last)).toMatch(/^200 /);
    expect(last.body.data).toMatchObject({ updated: 0, matched: 0, upserted: true });
    expect((await stored()).get('kup-late')?.d).toEqual({ user_id: 1, content: 'kup-late' });
    expect(last.headers.get('etag')).toBe((await api.post(reaction('get_one'), { filters: { id: 'kup-late' } })).headers.get('etag'));
  }, 90_000);

  test('create: the retry answers 201 with its record after another writer updated it, and stores no second one', async () => {
    const body = { data: { user_id: 2, content: 'kc-late' } };
    await lostThenRefused((w) => w.operation === 'PutItem' && w.keys.some(isRecord));
    const first = await api.post(reaction('create'), body, { 'idempotency-key': 'kc-late-key' });
    await proxy.set('pass');
    expect(first.status).toBe(503);
    const made = [...(await stored()).values()].filter((i) => i.d.content === 'kc-late');
    expect(made).toHaveLength(1);
    const id = String(made[0].id);
    const other = await api.post(reaction('update'), { filters: { id }, values: { user_name: 'other' } });
    expect(other.body.data).toMatchObject({ updated: 1 });
    const { last } = await retryKeyed('create', body, 'kc-late-key', AFTER_LEASE_MS);
    expect(described(last)).toMatch(/^201 /);
    expect(last.body.data.id).toBe(id);
    const after = [...(await stored()).values()].filter((i) => i.d.content === 'kc-late');
    expect(after.map((i) => [i.id, i.d.user_name])).toEqual([[id, 'other']]);
  }, 90_000);

  test('delete: the retry leaves a matching record another writer made between the runs, and counts what the request deleted', async () => {
    const ids = kdIds;
    const body = { filters: { content: 'kd-late' } };
    await lostThenRefused(touching(ids));
    const first = await api.post(reaction('delete'), body, { 'idempotency-key': 'kd-late-key' });
    await proxy.set('pass');
    expect(first.status).toBe(503);
    const made = await api.post(reaction('create'), { id: 'kd-late-new', data: { user_id: 9, content: 'kd-late' } });
    expect(made.status).toBe(201);
    const { last } = await retryKeyed('delete', body, 'kd-late-key', AFTER_LEASE_MS);
    expect(described(last)).toMatch(/^200 /);
    expect([...(await stored()).keys()].filter((id) => id.startsWith('kd-late'))).toEqual(['kd-late-new']);
    expect(last.body.data.deleted).toBe(ids.length);
  }, 90_000);

  test('delete: when the answer to keep was lost, the retry answers the count the first run deleted', async () => {
    const ids = kkIds;
    const body = { filters: { content: 'kk-late' } };
    // The key's first write claims it; once the records are gone, its next write (the answer) never arrives.
    let recordWrites = 0;
    let keptAnswerRefused = false;
    await proxy.set({
      refuseAt: (w) => {
        if (w.keys.some(isRecord)) recordWrites += 1;
        keptAnswerRefused ||= recordWrites >= ids.length && w.keys.some(isKeyItem);
        return keptAnswerRefused;
      },
    });
    await api.post(reaction('delete'), body, { 'idempotency-key': 'kk-late-key' });
    await proxy.set('pass');
    expect(keptAnswerRefused).toBe(true);
    expect([...(await stored()).keys()].filter((id) => id.startsWith('kk-late'))).toEqual([]);
    const { last } = await retryKeyed('delete', body, 'kk-late-key', AFTER_LEASE_MS);
    expect(described(last)).toMatch(/^200 /);
    expect(last.body.data.deleted).toBe(ids.length);
  }, 90_000);

  test('creates under held writes, each sent again with its key until answered: one record each, the one answered', async () => {
    const bodies = Array.from({ length: 5 }, (_, i) => ({ data: { user_id: i, content: `ks-late-${i}` } }));
    await proxy.set({ slowWritesMs: 3500 });
    await Promise.all(bodies.map((body, i) => api.post(reaction('create'), body, { 'idempotency-key': `ks-late-${i}` })));
    await proxy.drained();
    await proxy.set('pass');
    const retried = await Promise.all(bodies.map((body, i) => retryKeyed('create', body, `ks-late-${i}`, AFTER_LEASE_MS)));
    const now = [...(await stored()).values()];
    const outcome = bodies.map((body, i) => ({
      status: retried[i].last.status,
      stored: now.filter((item) => item.d.content === body.data.content).map((item) => item.id),
    }));
    expect(outcome).toEqual(retried.map(({ last }) => ({ status: 201, stored: [last.body?.data?.id] })));
  }, 90_000);

  test('a key whose request found the database gone is answered for real soon after it is back', async () => {
    // What a keyed create takes on this machine now sizes "soon".
    const ms = await measureMs(() => api.post(reaction('create'), { data: { user_id: 3, content: 'kg-measure' } }, { 'idempotency-key': 'kg-measure' }));
    const body = { data: { user_id: 3, content: 'kg-late' } };
    await proxy.set({ refuseAt: (w) => w.keys.some(isRecord) });
    const first = await api.post(reaction('create'), body, { 'idempotency-key': 'kg-late-key' });
    await proxy.set('pass');
    // The write's connection is reset after its request was sent (a keep-alive connection carried
    // it), so the service cannot know it was not delivered: outcome_unknown is the honest answer,
    // and database_unavailable only when its attempts were refused before they left.
    const refused = errorOf(first) === 'database_unavailable';
    expect(['database_unavailable', 'outcome_unknown']).toContain(errorOf(first));
    if (refused) expect([...(await stored()).values()].filter((i) => i.d.content === 'kg-late')).toEqual([]);
    // One "still in flight" whose Retry-After is honoured is allowed; then the request must run.
    const start = Date.now();
    const { answers, last } = await retryKeyed('create', body, 'kg-late-key', AFTER_LEASE_MS);
    const waitedFor = answers.filter((a) => a.status === 409).map((a) => Number(a.headers.get('retry-after') ?? 0));
    expect(described(last)).toMatch(/^201 /);
    if (refused) {
      expect(waitedFor.length).toBeLessThanOrEqual(1);
      expect(Date.now() - start).toBeLessThanOrEqual(1000 * (waitedFor[0] ?? 0) + 2000 + 4 * ms);
    }
    expect([...(await stored()).values()].filter((i) => i.d.content === 'kg-late')).toHaveLength(1);
  }, 90_000);
});

// Timeouts take from the SDK's retry quota, which the retries above need: these come after them.
describe.each([
  ['lands while the function still runs', 3500],
  ['lands after the function answered', 12_000],
])('every write held in the network until it %s', (_, delayMs) => {
  // Against cdk.out each request in flight is a process of its own (a Lambda sandbox): fewer there.
  const N = againstArtifacts() ? 5 : 20;
  const tag = `late${delayMs}`;
  const singles = Array.from({ length: N }, (_, i) => `${tag}-c${i}`);
  const batches = Array.from({ length: N }, (_, i) => Array.from({ length: 5 }, (_, j) => `${tag}-b${i}-${j}`));
  const updated = Array.from({ length: N }, (_, i) => `${tag}-u${i}`);
  const deleted = Array.from({ length: N }, (_, i) => `${tag}-d${i}`);
  const createData = (i: number): Data => ({ user_id: i, content: `${tag}-create` });
  seeded([...updated, ...deleted], (i) => ({ user_id: i, content: `${tag}-seeded` }));

  test(`${N} creates, ${N} batch creates of 5, ${N} updates and ${N} deletes, all at once: every answer holds once the writes landed`, async () => {
    const held = proxy.counts().held;
    await proxy.set({ slowWritesMs: delayMs });
    // Two rounds, so that the service's sockets to the engine (50) are not all waiting at once.
    const [creates, batchCreates] = await Promise.all([
      Promise.all(singles.map((id, i) => api.post(reaction('create'), { id, data: createData(i) }))),
      Promise.all(batches.map((ids, i) => api.post(reaction('create'), { ids, data: ids.map((_, j) => ({ user_id: i * 10 + j, content: `${tag}-batch` })) }))),
    ]);
    const [updates, deletes] = await Promise.all([
      Promise.all(updated.map((id) => api.post(reaction('update'), { filters: { id }, values: { user_name: `${id}-changed` } }))),
      Promise.all(deleted.map((id) => api.post(reaction('delete'), { filters: { id } }))),
    ]);
    await proxy.drained();
    await proxy.set('pass');
    // Every request's write was held past the service's 3 s answer timeout.
    expect(proxy.counts().held - held).toBeGreaterThanOrEqual(4 * N);
    const now = await stored();
    const violations = defined([
      ...singles.map((id, i) => createViolation(id, createData(i), creates[i], now)),
      ...batches.map((ids, i) => batchViolation(ids, batchCreates[i], now)),
      ...updated.map((id, i) => bulkViolation(`update ${id}`, 'updated', now.get(id)?.d.user_name === `${id}-changed` ? 1 : 0, updates[i])),
      ...deleted.map((id, i) => bulkViolation(`delete ${id}`, 'deleted', now.has(id) ? 0 : 1, deletes[i])),
    ]);
    expect(violations).toEqual([]);
  }, 180_000);
});

describe('writers racing on the same records while every write is held 3.5 s', () => {
  const ids = seeded(['race-0', 'race-1', 'race-2'], (i) => ({ user_id: i, content: 'race' }));

  test('the result is a serial order of the acknowledged requests and some of the unknown ones; database_unavailable ones have no effect', async () => {
    await proxy.set({ slowWritesMs: 3500 });
    const WRITERS = 4;
    // Each update sets two fields together: a mix of two requests' values is no serial order.
    const values = (r: number, w: number) => ({ user_name: `r${r}-w${w}`, user_id: 100 * r + w });
    const creates = Array.from({ length: WRITERS }, (_, w) => ({ user_id: w, content: `race-new-${w}` }));
    const [updates, made] = await Promise.all([
      Promise.all(
        ids.map((id, r) => Promise.all(Array.from({ length: WRITERS }, (_, w) => api.post(reaction('update'), { filters: { id }, values: values(r, w) })))),
      ),
      Promise.all(creates.map((data) => api.post(reaction('create'), { id: 'race-new', data }))),
    ]);
    await proxy.drained();
    await proxy.set('pass');
    const now = await stored();
    const violations: string[] = [];
    ids.forEach((id, r) => {
      const d = now.get(id)?.d;
      // Acknowledged: answered that it changed the record. May have: that, or an unknown outcome.
      const landed = (a: Reply) => a.status === 200 && Number(a.body.data.updated) >= 1;
      const mayHave = (a: Reply) =>
        (a.status === 200 && Number(a.body.data.updated) + Number(a.body.data.unknown ?? 0) >= 1) || (a.status === 503 && errorOf(a) === 'outcome_unknown');
      const writer = updates[r].findIndex((_, w) => d.user_name === values(r, w).user_name && d.user_id === values(r, w).user_id);
      if (writer < 0) {
        if (d.user_name !== undefined || updates[r].some(landed))
          violations.push(`${id} is ${JSON.stringify(d)}: no request wrote that, or it lost an acknowledged write`);
      } else if (!mayHave(updates[r][writer])) violations.push(`${id} holds the values of a request answered ${described(updates[r][writer])}`);
    });
    const createdBy = made.findIndex((_, w) => now.get('race-new')?.d.content === creates[w].content);
    const acknowledged = made.filter((a) => a.status === 201);
    if (acknowledged.length > 1) violations.push(`${acknowledged.length} creates of one id answered 201`);
    if (acknowledged.length === 1 && made[createdBy]?.status !== 201)
      violations.push(`race-new holds ${JSON.stringify(now.get('race-new')?.d)}, not the 201's record`);
    if (createdBy >= 0 && made[createdBy].status !== 201 && errorOf(made[createdBy]) !== 'outcome_unknown')
      violations.push(`race-new holds the record of a create answered ${described(made[createdBy])}`);
    expect(violations).toEqual([]);
  }, 120_000);
});

describe('bulk writes whose answers are lost from some write on', () => {
  const content = (ids: string[]) => `${ids[0].split('-')[0]}-bulk`;
  const range = (prefix: string, n: number) => {
    const ids = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
    return seeded(ids, (i) => ({ user_id: i, content: content(ids) }));
  };
  const rounds = [
    { update: range('bu200', 200), delete: range('bd50', 50), updateFrom: 41, deleteFrom: 1 },
    { update: range('bu50', 50), delete: range('bd200', 200), updateFrom: 1, deleteFrom: 41 },
  ];
  // Each write is applied; its answer never comes back, nor the answers of its retries.
  test('from the 41st of 200 and from the 1st of 50, update and delete: the counts bound what changed', async () => {
    const violations: string[] = [];
    for (const round of rounds) {
      const lost = proxy.counts().lost;
      await proxy.set({ loseAnswers: either(fromNth(round.updateFrom, touching(round.update)), fromNth(round.deleteFrom, touching(round.delete))) });
      const [update, remove] = await Promise.all([
        api.post(reaction('update'), { filters: { content: content(round.update) }, values: { user_name: 'bulked' } }),
        api.post(reaction('delete'), { filters: { content: content(round.delete) } }),
      ]);
      await proxy.set('pass');
      await proxy.drained();
      expect(proxy.counts().lost).toBeGreaterThan(lost);
      const now = await stored();
      violations.push(
        ...defined([
          bulkViolation(
            `update of ${round.update.length} losing from write ${round.updateFrom}`,
            'updated',
            round.update.filter((id) => now.get(id)?.d.user_name === 'bulked').length,
            update,
          ),
          bulkViolation(
            `delete of ${round.delete.length} losing from write ${round.deleteFrom}`,
            'deleted',
            round.delete.filter((id) => !now.has(id)).length,
            remove,
          ),
        ]),
      );
    }
    expect(violations).toEqual([]);
  }, 180_000);
});

// Last in the file: recording reaction's layout lets an update of an id alone (of a field not
// indexed) be its one write (docs/record-api.md), which the cases above must not take.
describe("an update's one write (an id alone, no read) whose answer was lost", () => {
  seeded(['ow-lost', 'ow-refused'], () => ({ user_id: 10, content: 'one-write' }));
  beforeAll(async () => {
    const { recordLayout } = require('../../shared/store/layout/index-build') as typeof import('../../shared/store/layout/index-build');
    const { reaction: model } = require('../../shared/models/reaction') as typeof import('../../shared/models/reaction');
    await recordLayout(model);
  });

  test('is 200 once the record shows its token, and applied once', async () => {
    const lost = proxy.counts().lost;
    await proxy.set({ loseAnswers: touching(['ow-lost']) });
    let r: Reply | undefined;
    const sent = await commandsSent(async () => {
      r = await api.post(reaction('update'), { filters: { id: 'ow-lost' }, values: { $set: { user_name: 'once' } } });
    });
    await proxy.set('pass');
    // One write and the read that settles it, no read before it (the bundles' commands are their own process's).
    if (!againstArtifacts()) expect(sent).toEqual({ UpdateItemCommand: 1, GetItemCommand: 1 });
    await proxy.drained();
    expect(proxy.counts().lost).toBeGreaterThan(lost);
    expect(r?.status).toBe(200);
    expect(r?.body.data).toMatchObject({ updated: 1 });
    const item = (await stored()).get('ow-lost');
    expect([item?.d.user_name, item?._version]).toEqual(['once', 2]);
    // The read that settled it gave the tag.
    expect(r?.headers.get('etag')).toBe((await api.post(reaction('get_one'), { filters: { id: 'ow-lost' } })).headers.get('etag'));
  });

  test('is 503 outcome_unknown when the record cannot be read to tell, and the write landed at most once', async () => {
    await proxy.set({ loseAnswers: touching(['ow-refused']), thenRefuse: true });
    const r = await api.post(reaction('update'), { filters: { id: 'ow-refused' }, values: { $set: { user_name: 'once' } } });
    await proxy.set('pass');
    await proxy.drained();
    expect(r.status).toBe(503);
    expect(r.body.data).toMatchObject({ error: 'outcome_unknown', unknown: 1 });
    const item = (await stored()).get('ow-refused');
    expect([item?.d.user_name, item?._version]).toEqual(['once', 2]);
  });
});
