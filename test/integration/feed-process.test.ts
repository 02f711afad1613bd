import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnNpmStart, spawnServe, stopServe } from '../../scripts/local/serve-process';
import { WebhookReceiver } from '../support/webhook-receiver';

// The local change feed runs in a process of its own beside the server's (scripts/local/feed-process.ts):
// what a user sees of that is that the feed outlives its own crash, stops with the server, and
// never outlives it.
const embedded = process.env.RG_TEST_ENGINE === 'dynalite';
let receiver: WebhookReceiver;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  receiver = new WebhookReceiver();
  await receiver.listen();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => stopServe(s, 'SIGKILL')));
  await receiver.close();
});

async function start(spawn = spawnServe): Promise<{ server: ServeProcess; url: string; feedPid: () => number }> {
  const server = spawn({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'recordgate-feed-process-')),
    TABLE_NAME: `feed_process_${process.pid}_${servers.length}`,
    // The feed's deaths and starts are log lines.
    LOG_LEVEL: 'info',
    ...(embedded ? {} : { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT! }),
    SUBSCRIPTIONS: JSON.stringify([{ name: 'everything', models: ['reaction'], url: receiver.url, secret: receiver.secret }]),
  });
  servers.push(server);
  const url = await server.ready;
  // The last one named: a feed started again names its new process.
  const feedPid = () => {
    const named = [...server.output().matchAll(/change feed: everything \(process (\d+)\)|"code":"feed_process_started","pid":(\d+)/g)].at(-1)!;
    return Number(named[1] ?? named[2]);
  };
  return { server, url, feedPid };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, done: () => boolean, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !done(); await sleep(100)) if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
}

const create = (url: string, id: string) =>
  fetch(`${url}/api/db/reaction/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, data: { user_id: 5, content: 'feed process' } }),
  });

const delivered = (id: string) => receiver.received.some((got) => got.body.data.id === id);

test('a feed process that dies is started again: the server answers meanwhile, and what was written meanwhile is delivered', async () => {
  const { server, url, feedPid } = await start();
  expect((await create(url, 'p-before')).status).toBe(201);
  await until('the first change delivered', () => delivered('p-before'));
  const first = feedPid();
  expect(first).not.toBe(server.child.pid);
  process.kill(first, 'SIGKILL');
  await until('the feed process gone', () => !alive(first));
  // Written while no feed runs: the server does not wait for it.
  expect((await create(url, 'p-during')).status).toBe(201);
  await until('the death logged', () => server.output().includes('"code":"feed_process_died"'));
  expect(server.output()).toMatch(/"code":"feed_process_died".*"signal":"SIGKILL"/);
  await until('the change written meanwhile delivered', () => delivered('p-during'));
  expect(feedPid()).not.toBe(first);
  expect(alive(feedPid())).toBe(true);
  expect(receiver.refused).toEqual([]);
}, 120_000);

test('SIGTERM stops the feed process with the server, cleanly; a kill -9 of the server ends it too', async () => {
  const clean = await start();
  const cleanFeed = clean.feedPid();
  expect(alive(cleanFeed)).toBe(true);
  expect(await stopServe(clean.server, 'SIGTERM')).toEqual({ code: 0, signal: null });
  expect(alive(cleanFeed)).toBe(false);
  expect(clean.server.output()).not.toContain('feed_process_died');

  const killed = await start();
  const killedFeed = killed.feedPid();
  expect((await create(killed.url, 'p-killed')).status).toBe(201);
  await stopServe(killed.server, 'SIGKILL');
  await until('the feed process gone with its server', () => !alive(killedFeed), 10_000);
}, 120_000);

test("a Ctrl-C (SIGINT to npm start's whole process group) stops the feed after the server drained, not before it", async () => {
  const { server, url, feedPid } = await start(spawnNpmStart);
  // npm start's output ends when the last process holding it is gone: npm, its shell, the server, the feed.
  const closed = new Promise<void>((done) => server.child.once('close', () => done()));
  const feed = feedPid();
  expect((await create(url, 'p-interrupted')).status).toBe(201);
  await until('the change delivered', () => delivered('p-interrupted'));
  process.kill(-server.child.pid!, 'SIGINT');
  await closed;
  expect(server.output()).toMatch(/stopped: \d+ request\(s\) drained, engine closed/);
  // Stopped by the server, not by the signal: its death would have been logged, and the feed started again.
  expect(server.output()).not.toContain('feed_process_died');
  expect(alive(feed)).toBe(false);
}, 120_000);
