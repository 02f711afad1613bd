import type { Context } from 'aws-lambda';
import { handler } from '../../functions/onebot_queue/handler';
import { FUNCTION_SETTINGS, ONEBOT_QUEUE } from '../../shared/limits';
import { maxReceiveCount, outageCoveredSeconds } from '../../shared/onebot/keep/backoff';
import { useApi } from '../support/api';
import { goCqhttp, napCat, type Json } from '../support/onebot-senders';
import { SqsModel } from '../support/sqs-model';
import { useSteerableProxy } from '../support/steerable-proxy';
import { groupMessage, groupPoke, storedEvents } from './onebot-fixtures';

// In AWS the receiver keeps a delivery the table cannot take as an SQS message, and the
// onebot_queue function drains the queue through the event source mapping. Here the receiver
// and the consumer are the real ones, against the real engine behind the steerable proxy; the
// queue and the event source mapping are the model of test/support/sqs-model.ts on a clock the
// test moves, with the queue's settings as infra/onebot-queue.ts deploys them.
process.env.AWS_ACCESS_KEY_ID = 'local';
process.env.AWS_SECRET_ACCESS_KEY = 'local';

const api = useApi();
const proxy = useSteerableProxy();
const HOUR = 3600_000;
const DAY = 24 * HOUR;

const settings = {
  visibilitySeconds: ONEBOT_QUEUE.visibilitySeconds,
  maxReceiveCount: maxReceiveCount(),
  retentionSeconds: ONEBOT_QUEUE.retentionDays * 86_400,
  deadLetterRetentionSeconds: ONEBOT_QUEUE.deadLetterRetentionDays * 86_400,
  batchSize: ONEBOT_QUEUE.batchSize,
};
let model: SqsModel;
const consumer = (event: Parameters<typeof handler>[0]) =>
  handler(event, { getRemainingTimeInMillis: () => FUNCTION_SETTINGS.timeoutSeconds * 1000 } as Context);

beforeEach(async () => {
  model = new SqsModel(settings);
  await model.listen();
  process.env.ONEBOT_QUEUE_URL = model.url;
  // The SDK warns that the queue URL's host is not SQS's regional endpoint: true here, and noise.
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(async () => {
  jest.restoreAllMocks();
  delete process.env.ONEBOT_QUEUE_URL;
  await proxy.set('pass');
  await model.close();
});

/** Runs the event source mapping with the table unreachable (`mode`) until `outageMs` after now, then reachable. */
async function drainThrough(outageMs: number, until = Number.POSITIVE_INFINITY, mode: 'refuse' | 'hang' = 'refuse', run = consumer): Promise<void> {
  const healAt = model.now + outageMs;
  let down = true;
  await proxy.set(mode);
  await model.run(run, until, async (now) => {
    if (down && now >= healAt) {
      await proxy.set('pass');
      down = false;
    }
  });
}

test('a 6-hour outage: no delivery is dead-lettered, and each is stored exactly once after it', async () => {
  const napcat = napCat({ selfId: 20701 });
  const gocq = goCqhttp({ selfId: 20702, timeoutMs: 60_000 });
  const url = `${api.url}/onebot/v11/`;
  await proxy.set('refuse');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    statuses.push((await napcat.post(url, groupPoke(30701, 42000 + i, 20701) as Json)).status!);
    statuses.push((await gocq.post(url, groupMessage(30701, 9000 + i, 42000 + i, `m${i}`) as Json)).status!);
  }
  expect(statuses).toEqual(statuses.map(() => 200));
  expect(model.queue.size).toBe(12);

  const start = model.now;
  await drainThrough(6 * HOUR);

  expect({ deadLetters: model.deadLetters.length, expired: model.expired.length, left: model.queue.size, deleted: model.deleted.length }).toEqual({
    deadLetters: 0,
    expired: 0,
    left: 0,
    deleted: 12,
  });
  // Each was received many times over the outage, by far more than the 5 receives it used to get in all.
  const receives = model.deleted.map((m) => m.receiveCount);
  expect(Math.min(...receives)).toBeGreaterThan(5);
  expect(Math.max(...receives)).toBeLessThan(settings.maxReceiveCount);
  expect(model.now - start).toBeGreaterThanOrEqual(6 * HOUR);

  const pokes = await storedEvents(api, { self_id: 20701 });
  expect(pokes.map((e) => Number(e.user_id)).sort()).toEqual([42000, 42001, 42002, 42003, 42004, 42005]);
  const messages = await storedEvents(api, { self_id: 20702 });
  expect(messages.map((e) => Number(e.message_id)).sort()).toEqual([9000, 9001, 9002, 9003, 9004, 9005]);
}, 180_000);

test('a table that hangs: each invocation still hides its deliveries before its cutoff, and stores them after', async () => {
  const napcat = napCat({ selfId: 20704 });
  await proxy.set('refuse');
  expect((await napcat.post(`${api.url}/onebot/v11/`, groupPoke(30704, 42200, 20704) as Json)).status).toBe(200);
  // 6 s left at each invocation: the store is cut off at 1 s, leaving the reserve for the visibility change.
  const short = (event: Parameters<typeof handler>[0]) => handler(event, { getRemainingTimeInMillis: () => 6000 } as Context);
  await drainThrough(2 * HOUR, Number.POSITIVE_INFINITY, 'hang', short);
  expect({ deadLetters: model.deadLetters.length, deleted: model.deleted.length }).toEqual({ deadLetters: 0, deleted: 1 });
  expect(model.deleted[0].receiveCount).toBeGreaterThan(5);
  expect((await storedEvents(api, { self_id: 20704 })).map((e) => Number(e.user_id))).toEqual([42200]);
}, 120_000);

test('an outage longer than the backoffs cover: the delivery is dead-lettered before its retention ends, with days left there', async () => {
  const napcat = napCat({ selfId: 20703 });
  await proxy.set('refuse');
  expect((await napcat.post(`${api.url}/onebot/v11/`, groupPoke(30703, 42100, 20703) as Json)).status).toBe(200);
  const [kept] = [...model.queue.values()];

  await drainThrough(30 * DAY, kept.sentAt + settings.retentionSeconds * 1000);

  expect(model.expired).toEqual([]);
  expect(model.deadLetters.map((m) => [m.messageId, m.receiveCount])).toEqual([[kept.messageId, settings.maxReceiveCount]]);
  const [dead] = model.deadLetters;
  const waited = dead.deadLetteredAt! - dead.sentAt;
  expect(waited).toBeGreaterThanOrEqual(outageCoveredSeconds() * 1000);
  expect(waited).toBeLessThan(settings.retentionSeconds * 1000);
  // A dead letter keeps its first send time: what is left of the dead-letter queue's retention, to redrive it.
  expect(dead.sentAt + settings.deadLetterRetentionSeconds * 1000 - dead.deadLetteredAt!).toBeGreaterThanOrEqual(settings.retentionSeconds * 1000);
}, 180_000);

test('a delivery that fails for another reason than the table is not held back: dead-lettered within minutes, for the alarm', async () => {
  await proxy.set('pass');
  model.send('not json');
  const start = model.now;
  await model.run(consumer, Number.POSITIVE_INFINITY);
  expect(model.deadLetters).toHaveLength(1);
  expect(model.deadLetters[0].deadLetteredAt! - start).toBeLessThanOrEqual(settings.maxReceiveCount * settings.visibilitySeconds * 1000);
}, 60_000);
