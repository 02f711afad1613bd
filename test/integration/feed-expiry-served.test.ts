import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnServe, stopServe } from '../../scripts/local/serve-process';
import { WebhookReceiver } from '../support/webhook-receiver';
import { bodyOf, EVENT_ROUTE, EVENTS, SELF_ID } from './onebot-fixtures';

// Expiry end to end, as `npm start` runs it: a heartbeat kept for 3 seconds
// (ONEBOT_META_RETENTION_DAYS; OneBot's retention is the onebot_event model's ttl field) is gone
// from reads once its second passes, and the sweeper's delete reaches a subscription as an expiry;
// a message, which never expires, stays. Real seconds pass here (the server's clock is its own).
const embedded = process.env.RG_TEST_ENGINE === 'dynalite';
test('npm start hides a heartbeat once expired, sweeps it, and tells the subscription it expired', async () => {
  const receiver = new WebhookReceiver(2_000);
  await receiver.listen();
  const server: ServeProcess = spawnServe({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'recordgate-expiry-')),
    TABLE_NAME: `expiry_${process.pid}`,
    ...(embedded ? {} : { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT! }),
    ONEBOT_META_RETENTION_DAYS: String(3 / 86_400),
    SUBSCRIPTIONS: JSON.stringify([{ name: 'events', models: ['onebot_event'], url: receiver.url, secret: receiver.secret }]),
  });
  try {
    await expiresAndIsTold(receiver, server);
  } finally {
    await stopServe(server, 'SIGKILL');
    await receiver.close();
  }
  // The sweeper deletes what expired before the minute began, and rounds every 5 s: about a minute and 5 s at most, on a loaded machine more.
}, 180_000);

async function expiresAndIsTold(receiver: WebhookReceiver, server: ServeProcess): Promise<void> {
  const url = await server.ready;
  const deliver = async (event: Record<string, unknown>) => {
    const reply = await fetch(`${url}${EVENT_ROUTE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-self-id': String(SELF_ID) },
      body: bodyOf(event, Math.floor(Date.now() / 1000)),
    });
    expect(reply.status).toBe(200);
  };
  await deliver(EVENTS['meta_event heartbeat']);
  await deliver(Object.values(EVENTS)[0]);
  const count = async (): Promise<number> => {
    const reply = await fetch(`${url}/api/db/onebot_event/count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"filters": {}}' });
    return ((await reply.json()) as { data: { count: number } }).data.count;
  };
  const told = () =>
    receiver.received
      .filter((r) => r.behaviour !== 'fail')
      .map((r) => `${r.body.data.op} ${r.body.data.after?.post_type ?? r.body.data.before?.post_type} ${r.body.data.expired ?? '-'}`);
  const until = async (what: string, done: () => Promise<boolean> | boolean) => {
    for (const end = Date.now() + 100_000; !(await done()); await sleep(200))
      if (Date.now() > end) throw new Error(`not within 100 s: ${what}\n${server.output()}`);
  };
  // The heartbeat's second passes: it is no longer counted, though nothing deleted it yet.
  await until('the heartbeat expired', async () => (await count()) === 1);
  await until('the expiry told', () => told().includes('delete meta_event true'));
  expect(new Set(told())).toEqual(new Set(['create meta_event -', `create ${Object.values(EVENTS)[0].post_type} -`, 'delete meta_event true']));
  expect(await count()).toBe(1);
}
