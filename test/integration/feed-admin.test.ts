import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnServe, stopServe } from '../../scripts/local/serve-process';
import type { Change } from '../../shared/feed/change';
import { checkSubscriptions, matches } from '../../shared/feed/check-subscriptions';
import { writeDeadLetter } from '../../shared/feed/dead-letters';
import { changeOf } from '../../shared/feed/from-stream';
import { encodeReplayCursor } from '../../shared/feed/replay-cursor';
import { streams } from '../../shared/feed/stream/client';
import { rangeFrom, streamArnOf } from '../../shared/feed/stream/read';
import { describeShards } from '../../shared/feed/stream/shards';
import { tableClient } from '../../shared/store/client';
import { heads, release } from '../../shared/feed/outbox';
import { seeded } from '../support/feed-history';
import { streamSoFar } from '../support/stream-records';
import { WebhookReceiver } from '../support/webhook-receiver';

// The change feed's admin routes through `npm start` (scripts/serve.ts), on both engines: GET
// /api/feed tells each subscription's delivery state, POST /api/feed/{subscription}/replay sends
// its dead letters or the stream's changes since a time again, through the server's own outbox
// and worker, to a real receiver. The server shares this file's table on the test run's engine,
// so the test reads the outbox and plays the worker's last failed attempt (the schedule's 27.6 h
// cannot be waited out through a server on the real clock).
const SEED = Number(process.env.FEED_SEED ?? Date.now() % 100_000);
const ADMIN = 'feed-admin-token';
const WRITER = 'feed-writer-token';

let receiver: WebhookReceiver;
let server: ServeProcess;
let url: string;
const began = new Date();

beforeAll(async () => {
  receiver = new WebhookReceiver();
  await receiver.listen();
  server = spawnServe({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'recordgate-feed-admin-')),
    TABLE_NAME: process.env.TABLE_NAME!,
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
    API_TOKENS: JSON.stringify({ [ADMIN]: ['read', 'write', 'admin'], [WRITER]: ['read', 'write'] }),
    SUBSCRIPTIONS: JSON.stringify([{ name: 'hearts', models: ['reaction'], filter: { content: 'heart' }, url: receiver.url, secret: receiver.secret }]),
  });
  url = await server.ready;
});
afterAll(async () => {
  if (server) await stopServe(server, 'SIGKILL');
  await receiver.close();
});

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  const reply = await fetch(`${url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json()) as { status: string; data: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
const state = async () => {
  const reply = await call('GET', '/api/feed', ADMIN);
  expect(reply.status).toBe(200);
  return reply.body.data;
};
const replay = (body: unknown, subscription = 'hearts', token = ADMIN) => call('POST', `/api/feed/${subscription}/replay`, token, body);

async function until(what: string, done: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !(await done()); await sleep(100))
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}\n${server.output()}`);
}

/** The deliveries the endpoint acknowledged, by webhook-id: how many times each. */
const acknowledgedTimes = (id: string) => receiver.received.filter((r) => r.id === id && r.behaviour === 'ok').length;
const changesOf = (id: string) => receiver.received.filter((r) => r.body.data.id === id);

describe('who may call them', () => {
  test('without a token 401, with a token lacking admin 403', async () => {
    expect((await call('GET', '/api/feed', undefined)).status).toBe(401);
    expect((await call('GET', '/api/feed', WRITER)).body).toMatchObject({ status: 'error', data: { error: 'forbidden' } });
    expect((await call('GET', '/api/feed', WRITER)).status).toBe(403);
    expect((await replay({ dead_letters: true }, 'hearts', WRITER)).status).toBe(403);
    expect((await replay({ since: began.toISOString() }, 'hearts', WRITER)).status).toBe(403);
  });
});

test('a dead letter shows in GET /api/feed and, replayed, reaches the recovered endpoint with its webhook-id and body', async () => {
  receiver.behave = ({ data }) => (data.id === 'dl-2' ? 'fail' : 'ok');
  for (const id of ['dl-1', 'dl-2'])
    expect((await call('POST', '/api/db/reaction/create', WRITER, { id, data: { user_id: 1, content: 'heart' } })).status).toBe(201);
  await until('dl-1 delivered', () => changesOf('dl-1').some((r) => r.behaviour === 'ok'));
  // The schedule's second attempt comes 5 s after the first; the third would wait 5 minutes.
  await until('dl-2 failed twice', async () => {
    for await (const head of heads('hearts')) if (head.delivery.change.id === 'dl-2') return head.attempts === 2;
    return false;
  });
  const first = changesOf('dl-1')[0].body.data;
  const dead = changesOf('dl-2')[0].body.data as Change;
  // The worker notes a delivery after its endpoint answered: looked for, not assumed.
  await until('dl-1 noted as delivered', async () => (await state()).subscriptions[0].last_delivered !== undefined);
  expect(await state()).toEqual({
    subscriptions: [
      { name: 'hearts', pending: 1, dead_letters: 0, newest_dead_letters: [], last_delivered: { change_id: first.change_id, at: expect.any(String) } },
    ],
  });
  // What the worker does when the schedule's last attempt fails (shared/feed/outbox-worker.ts).
  for await (const head of heads('hearts')) {
    await writeDeadLetter({ delivery: head.delivery, attempts: head.attempts, failure: head.failure!, at: new Date().toISOString() });
    await release(head);
  }
  const seen = await state();
  expect(seen.subscriptions[0]).toMatchObject({ name: 'hearts', pending: 0, dead_letters: 1 });
  expect(seen.subscriptions[0].newest_dead_letters).toEqual([
    { change_id: dead.change_id, model: 'reaction', id: 'dl-2', op: 'create', version: 1, attempts: 2, last_failure: 'status 503', at: expect.any(String) },
  ]);

  receiver.behave = () => 'ok';
  expect(await replay({ dead_letters: true })).toEqual({ status: 200, body: expect.objectContaining({ data: { subscription: 'hearts', queued: 1 } }) });
  await until('the dead letter delivered', () => acknowledgedTimes(dead.change_id) === 1);
  expect(receiver.received.filter((r) => r.id === dead.change_id).map((r) => r.body.data)).toEqual([dead, dead, dead]);
  await until('the state tells it delivered', async () => (await state()).subscriptions[0].last_delivered?.change_id === dead.change_id);
  expect((await state()).subscriptions[0]).toMatchObject({ pending: 0, dead_letters: 0, newest_dead_letters: [] });
  // Replayed once: a second replay finds nothing.
  expect((await replay({ dead_letters: true })).body.data).toEqual({ subscription: 'hearts', queued: 0 });
});

test(`since a time re-sends exactly the stream's changes the subscription matches, each with its webhook-id, in commit order per record (seed ${SEED})`, async () => {
  receiver.behave = () => 'ok';
  const next = seeded(SEED);
  const ids = ['s-1', 's-2', 's-3'];
  for (let i = 0; i < 12; i++) {
    const id = ids[Math.floor(next() * ids.length)];
    const content = next() < 0.5 ? 'heart' : 'rocket';
    const reply = await call('POST', '/api/db/reaction/update', WRITER, { filters: { id }, values: { user_id: i, content }, upsert: true });
    expect([200, 201]).toContain(reply.status);
  }
  // Every write is delivered before the replay starts: the poller reads the one shard in order, so
  // once the last write's change arrives every earlier one is queued, and none is left pending.
  // What the consumer told (matched live) is the reference: every change of this file's table
  // the subscription matches, once each.
  expect((await call('POST', '/api/db/reaction/create', WRITER, { id: 's-end', data: { user_id: 0, content: 'heart' } })).status).toBe(201);
  await until('the last write delivered', () => changesOf('s-end').length > 0);
  await until('nothing pending', async () => (await state()).subscriptions[0].pending === 0);
  const first = new Map<string, Change>();
  for (const r of receiver.received) if (!first.has(r.id)) first.set(r.id, r.body.data as Change);
  const told = [...first.values()];
  const before = receiver.received.length;

  const answer = await replay({ since: began.toISOString() });
  expect(answer).toEqual({ status: 200, body: expect.objectContaining({ data: { subscription: 'hearts', queued: told.length, next_cursor: null } }) });
  await until('every change sent again', () => receiver.received.length - before >= told.length);
  await until('the state settles', async () => (await state()).subscriptions[0].pending === 0);
  const again = receiver.received.slice(before);
  // The same changes, each once more, with the same webhook-id and body; none the filter leaves out.
  const byId = (a: { change_id: string }, b: { change_id: string }) => a.change_id.localeCompare(b.change_id);
  expect(again.map((r) => r.body.data).sort(byId)).toEqual([...told].sort(byId));
  expect(again.every((r) => r.id === r.body.data.change_id)).toBe(true);
  for (const id of ids) {
    const order = again.filter((r) => r.body.data.id === id).map((r) => r.id);
    expect(order).toEqual(told.filter((c) => c.id === id).map((c) => c.change_id));
  }
  expect(again.every((r) => r.body.data.after?.content === 'heart')).toBe(true);
});

test('until bounds a replay of the stream, and a cursor goes on from where a replay stopped, with the rest of its range', async () => {
  // A range ending before this file's first write holds nothing.
  const early = new Date(began.getTime() - 3 * 60_000).toISOString();
  expect(await replay({ since: early, until: early })).toEqual({
    status: 200,
    body: expect.objectContaining({ data: { subscription: 'hearts', queued: 0, next_cursor: null } }),
  });
  // The cursor a replay stopped by its time answers with: its range, and the stream's position
  // after the last page it queued.
  const [subscription] = await checkSubscriptions(
    JSON.stringify([{ name: 'hearts', models: ['reaction'], filter: { content: 'heart' }, url: receiver.url, secret: receiver.secret }]),
  );
  const records = await streamSoFar();
  const [shard] = await describeShards(streams(), await streamArnOf(tableClient(), process.env.TABLE_NAME!));
  const changes = await Promise.all(records.map(changeOf));
  const matching = [...changes.keys()].filter((i) => changes[i] !== undefined && matches(subscription, changes[i]));
  expect(matching.length).toBeGreaterThanOrEqual(2);
  // Stopped after the first half of the changes it matches (the stream holds the outbox's items too).
  const cut = matching[Math.floor((matching.length - 1) / 2)];
  const range = { from: rangeFrom(began), until: Math.ceil(Date.now() / 1000) };
  const position = { done: [], at: { shard: shard.id, after: records[cut].dynamodb!.SequenceNumber! } };
  const rest = matching.filter((i) => i > cut).map((i) => changes[i]!);
  const before = receiver.received.length;
  const answer = await replay({ cursor: encodeReplayCursor({ subscription: 'hearts', range, position }) });
  expect(answer).toEqual({ status: 200, body: expect.objectContaining({ data: { subscription: 'hearts', queued: rest.length, next_cursor: null } }) });
  await until('the rest sent again', () => receiver.received.length - before >= rest.length);
  expect(
    receiver.received
      .slice(before)
      .map((r) => r.id)
      .sort(),
  ).toEqual(rest.map((c) => c.change_id).sort());
});

describe('what is refused, in the error envelope, with nothing queued', () => {
  test('an unknown subscription is 404', async () => {
    const reply = await replay({ dead_letters: true }, 'nobody');
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ status: 'error', data: { error: 'not_found' } });
  });

  test.each([
    ['no choice', {}, ''],
    ['both', { dead_letters: true, since: new Date().toISOString() }, ''],
    ['dead_letters not true', { dead_letters: false }, 'dead_letters'],
    ['since not a time', { since: 'yesterday' }, 'since'],
    ['an unknown property', { dead_letters: true, all: true }, 'all'],
    ['until without since', { dead_letters: true, until: new Date().toISOString() }, 'until'],
    ['until before since', { since: new Date().toISOString(), until: new Date(Date.now() - 60_000).toISOString() }, 'until'],
    ['a cursor and since', { cursor: 'x', since: new Date().toISOString() }, ''],
  ])('a bad body (%s) is 400 with field details', async (_, body, path) => {
    const reply = await replay(body);
    expect(reply.status).toBe(400);
    expect(reply.body.data).toMatchObject({ error: 'invalid_request', details: [expect.objectContaining({ path })] });
  });

  test.each([
    ['not one a replay answered', 'not-a-cursor'],
    ['of another subscription', encodeReplayCursor({ subscription: 'others', range: { from: 0, until: 1 }, position: { done: [] } })],
  ])('a cursor %s is 400 invalid_cursor', async (_, cursor) => {
    const reply = await replay({ cursor });
    expect(reply.status).toBe(400);
    expect(reply.body.data).toMatchObject({ error: 'invalid_cursor' });
  });

  test("since older than the stream's 24 hours is 400 naming the retention", async () => {
    const reply = await replay({ since: new Date(Date.now() - 25 * 3600_000).toISOString() });
    expect(reply.status).toBe(400);
    expect(reply.body.data).toMatchObject({ error: 'invalid_request', details: [{ path: 'since', message: expect.stringContaining('24 hours') }] });
  });
});
