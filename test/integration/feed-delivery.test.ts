import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnServe, stopServe } from '../../scripts/local/serve-process';
import { seeded } from '../support/feed-history';
import { WebhookReceiver } from '../support/webhook-receiver';
import { bodyOf, EVENT_ROUTE, EVENTS, SELF_ID } from './onebot-fixtures';

// The change feed end to end, as `npm start` runs it: writes of every kind through the API, the
// table's stream read by the poller, the consumer, the outbox and its worker, to a receiver that
// fails first attempts and answers slowly at random (real waits, so only the schedule's first
// retry, 5 s; the rest of the schedule, hangs and dead letters run on a moved clock in
// feed-outbox.test.ts and feed-queue.test.ts); and a kill -9 in the middle of a bulk write.
// On dynalite the server runs its embedded engine on disk; on DynamoDB Local it uses that engine.
const SEED = Number(process.env.FEED_SEED ?? Date.now() % 100_000);
const embedded = process.env.RG_TEST_ENGINE === 'dynalite';

let receiver: WebhookReceiver;
let server: ServeProcess | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-feed-'));
const tableName = `feed_${SEED}_${process.pid}`;

beforeAll(async () => {
  receiver = new WebhookReceiver(2_000);
  await receiver.listen();
});
afterAll(async () => {
  if (server) await stopServe(server, 'SIGKILL');
  await receiver.close();
});

const start = async (): Promise<string> => {
  server = spawnServe({
    DATA_DIR: dataDir,
    TABLE_NAME: tableName,
    ...(embedded ? {} : { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT! }),
    SUBSCRIPTIONS: JSON.stringify([{ name: 'everything', models: ['reaction', 'onebot_event'], url: receiver.url, secret: receiver.secret }]),
  });
  return server.ready;
};

const post = async (url: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const reply = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: reply.status, body: (await reply.json().catch(() => undefined)) as { data?: Record<string, unknown> } | undefined };
};

/** What a delivered change tells, short: op, record, version. */
const told = (data: { op: string; id: string; version: number }) => `${data.op} ${data.id} ${data.version}`;

/** Per record of `model`, the changes in the order the endpoint first acknowledged each (a slow answer, within the timeout, too). */
function firstAcknowledged(model: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const got of receiver.received) {
    if (got.behaviour === 'fail' || got.body.data.model !== model || seen.has(got.id)) continue;
    seen.add(got.id);
    out.set(got.body.data.id, [...(out.get(got.body.data.id) ?? []), told(got.body.data)]);
  }
  return out;
}

async function until(what: string | (() => string), done: () => boolean, ms = 90_000): Promise<void> {
  for (const end = Date.now() + ms; !done(); await sleep(100))
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${typeof what === 'string' ? what : what()}\n${server?.output()}`);
}

test(`npm start delivers every committed write of every kind once or more, in commit order per record, and nothing uncommitted (seed ${SEED})`, async () => {
  const next = seeded(SEED);
  const failedOnce = new Set<string>();
  receiver.behave = ({ data }) => {
    const x = next();
    // The first change always fails once, so that a run whose draws (in the order deliveries happen to come) spare every change still retries one.
    if (!failedOnce.has(data.change_id) && (failedOnce.size === 0 || x < 0.3)) {
      failedOnce.add(data.change_id);
      return 'fail';
    }
    return x > 0.85 ? 'late' : 'ok';
  };
  const url = await start();
  const r = (op: string) => `/api/db/reaction/${op}`;
  const ok = async (path: string, body: unknown) => {
    const reply = await post(url, path, body);
    expect([200, 201]).toContain(reply.status);
    return reply;
  };
  const expected: string[] = [];
  await ok(r('create'), { id: 'e1', data: { user_id: 1, content: 'heart' } });
  expected.push('create e1 1');
  await ok(r('create'), {
    ids: ['e2', 'e3'],
    data: [
      { user_id: 2, content: 'rocket' },
      { user_id: 2, content: 'rocket' },
    ],
  });
  expected.push('create e2 1', 'create e3 1');
  await ok(r('update'), { filters: { user_id: 2 }, values: { content: 'heart' } });
  expected.push('update e2 2', 'update e3 2');
  await ok(r('update'), { filters: { id: 'e4' }, values: { $set: { user_id: 4, content: 'up' } }, upsert: true });
  await ok(r('update'), { filters: { id: 'e4' }, values: { $inc: { user_id: 1 } }, upsert: true });
  expected.push('create e4 1', 'update e4 2');
  await ok('/api/db/transaction', {
    operations: [
      { op: 'create', model: 'reaction', id: 'e5', data: { user_id: 5, content: 'tx' } },
      { op: 'update', model: 'reaction', id: 'e4', values: { content: 'heart' } },
      { op: 'delete', model: 'reaction', id: 'e3' },
    ],
  });
  expected.push('create e5 1', 'update e4 3', 'delete e3 2');
  await ok(r('delete'), { filters: { user_id: 2 } });
  expected.push('delete e2 2');
  // Created again after its delete: a new life, version 1 again, told after the delete.
  await ok(r('create'), { id: 'e2', data: { user_id: 9, content: 'again' } });
  expected.push('create e2 1');
  // Nothing commits: a refused create, a rolled-back transaction, an update matching none.
  expect((await post(url, r('create'), { id: 'bad', data: { user_id: 'x', content: 1 } })).status).toBe(422);
  const rolledBack = await post(url, '/api/db/transaction', {
    operations: [
      { op: 'create', model: 'reaction', id: 'e-rolled', data: { user_id: 7, content: 'no' } },
      { op: 'check', model: 'reaction', id: 'e5', filters: { user_id: 99 } },
    ],
  });
  expect(rolledBack.status).toBeGreaterThanOrEqual(400);
  // A OneBot event, stored as a record of onebot_event.
  const onebot = await fetch(`${url}${EVENT_ROUTE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-self-id': String(SELF_ID) },
    body: bodyOf(Object.values(EVENTS)[0], Math.floor(Date.now() / 1000)),
  });
  expect(onebot.status).toBe(200);

  const bot = () => receiver.received.filter((g) => g.behaviour !== 'fail' && g.body.data.model === 'onebot_event');
  // Counted by change: e2 is created twice, two changes that tell the same.
  const missing = () => {
    const acknowledged = new Map<string, Set<string>>();
    for (const g of receiver.received.filter((r) => r.behaviour !== 'fail'))
      acknowledged.set(told(g.body.data), (acknowledged.get(told(g.body.data)) ?? new Set()).add(g.id));
    const owed = new Map<string, number>();
    for (const e of expected) owed.set(e, (owed.get(e) ?? 0) + 1);
    return [...[...owed].filter(([e, n]) => (acknowledged.get(e)?.size ?? 0) < n).map(([e]) => e), ...(bot().length > 0 ? [] : ['a onebot_event'])];
  };
  await until(
    () =>
      `every committed change acknowledged (missing: ${missing().join(', ')}; got ${receiver.received.map((g) => `${told(g.body.data)} ${g.behaviour}`).join(', ')})`,
    () => missing().length === 0,
  );
  expect(receiver.refused).toEqual([]);
  expect(bot()[0].body).toMatchObject({ type: 'onebot_event.create', data: { op: 'create', version: 1 } });
  // Per record, in commit order (a record's next change waits for its first to be acknowledged).
  const perRecord = new Map<string, string[]>();
  for (const e of expected) perRecord.set(e.split(' ')[1], [...(perRecord.get(e.split(' ')[1]) ?? []), e]);
  const reactions = firstAcknowledged('reaction');
  expect(reactions).toEqual(perRecord);
  // Retries and slow answers carry the change's id and the same change each time.
  for (const got of receiver.received) {
    expect(got.body.data.change_id).toBe(got.id);
    expect(receiver.received.filter((g) => g.id === got.id).every((g) => JSON.stringify(g.body) === JSON.stringify(got.body))).toBe(true);
  }
  expect(receiver.received.some((g) => g.behaviour === 'fail')).toBe(true);
  expect(receiver.received.some((g) => ['bad', 'e-rolled'].includes(g.body.data.id))).toBe(false);
}, 180_000);

test('a kill -9 in the middle of a bulk update: after the restart every committed change is delivered', async () => {
  receiver.behave = () => 'ok';
  const url = server?.child.exitCode === null ? await server.ready : await start();
  const ids = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  for (let i = 0; i < ids.length; i += 100) {
    const slice = ids.slice(i, i + 100);
    const create = () =>
      post(url, '/api/db/reaction/create', { ids: slice, data: slice.map(() => ({ user_id: 77, content: 'before' })) }, { 'idempotency-key': `seed-${i}` });
    // A loaded engine may answer 503 (nothing acknowledged): the same key sent again settles it, as a client would.
    let created = await create();
    const unsettled = () => created.status === 503 || created.body?.data?.error === 'idempotency_in_flight';
    for (let tries = 0; unsettled() && tries < 10; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      created = await create();
    }
    expect(created.status).toBe(201);
  }
  // allow_all: run alone, the 200 are every record of the model.
  const bulk = post(url, '/api/db/reaction/update', { filters: { user_id: 77 }, values: { content: 'after' }, allow_all: true }).catch(() => undefined);
  // Killed once the feed told of some of the bulk update's changes, not all.
  await until(
    () => `the bulk update under way (${receiver.received.length} received)`,
    () => receiver.received.some((g) => g.body.data.id.startsWith('k') && g.body.data.version === 2),
    60_000,
  );
  server!.child.kill('SIGKILL');
  await server!.exited;
  await bulk;

  const again = await start();
  const stored: Array<{ id: string; _version: number }> = [];
  let cursor: string | undefined;
  do {
    const page = await post(again, '/api/db/reaction/list', { filters: { user_id: 77 }, limit: 100, ...(cursor ? { cursor } : {}) });
    const data = page.body!.data as { items: Array<{ id: string; _version: number }>; next_cursor?: string };
    stored.push(...data.items);
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
  expect(stored).toHaveLength(ids.length);
  const updated = stored.filter((s) => s._version === 2).length;
  expect(updated).toBeGreaterThan(0);
  // Every record's committed state is told, whether its write landed before the kill or not.
  await until('each record stored as it is, told', () => {
    const got = new Set(receiver.received.filter((g) => g.behaviour === 'ok').map((g) => `${g.body.data.id} ${g.body.data.version}`));
    return stored.every((s) => got.has(`${s.id} ${s._version}`));
  });
  expect(receiver.refused).toEqual([]);
  // A stop with the feed running is a clean one: the poller's batch and the worker's attempts finish first.
  expect(await stopServe(server!, 'SIGTERM')).toEqual({ code: 0, signal: null });
  server = undefined;
}, 240_000);

test('a bad SUBSCRIPTIONS entry stops npm start, named by where it is, its secret never shown', async () => {
  const secret = 'whsec_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1zaG93bi0x';
  const bad = spawnServe({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'recordgate-feed-bad-')),
    SUBSCRIPTIONS: JSON.stringify([
      { name: 'ok', models: ['reaction'], url: receiver.url, secret },
      { name: 'typo', models: ['no_such_model'], url: receiver.url, secret },
    ]),
  });
  expect((await bad.exited).code).toBe(1);
  expect(bad.output()).toMatch(/recordgate cannot start: SUBSCRIPTIONS is invalid: .*SUBSCRIPTIONS\[1\]/);
  expect(bad.output()).not.toContain(secret.slice(6, 20));
  const bus = spawnServe({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'recordgate-feed-bad-')),
    SUBSCRIPTIONS: JSON.stringify([{ name: 'b', models: ['reaction'], bus: 'default' }]),
  });
  expect((await bus.exited).code).toBe(1);
  expect(bus.output()).toMatch(/SUBSCRIPTIONS\[0\] \(b\): an EventBridge bus is for the deployed stack only/);
}, 60_000);
