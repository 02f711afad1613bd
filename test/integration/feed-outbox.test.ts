import { setTimeout as sleep } from 'node:timers/promises';
import { BREAKER } from '../../shared/feed/breaker';
import { deadLetters } from '../../shared/feed/dead-letters';
import { localFeedState, replayDeadLetters } from '../../shared/feed/replay';
import { lastDelivered } from '../../shared/feed/delivered';
import type { WebhookSubscription } from '../../shared/feed/deliver';
import { Outbox, pendingCount } from '../../shared/feed/outbox';
import { OutboxWorker } from '../../shared/feed/outbox-worker';
import type { Delivery } from '../../shared/feed/queue';
import { RETRY_SCHEDULE_SECONDS } from '../../shared/feed/schedule';
import { useClock } from '../support/clock';
import { changeHistory, drain, expectDeliveredOrDead, seeded } from '../support/feed-history';
import { type Behaviour, WebhookReceiver } from '../support/webhook-receiver';

// The local delivery path of the change feed, from DeliveryQueue.send to a receiver that fails,
// hangs and answers late at random: the outbox (items of the real table on the real engine) and
// its worker, on a clock the test moves to each retry's due time instead of waiting the
// schedule's hours. Every signature is checked by the receiver with the standardwebhooks package.
const clock = useClock();
// A hung endpoint is given up on after this long: shortened from 15 s, never asserted on.
const TIMEOUT_MS = 1_500;

let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = new WebhookReceiver(TIMEOUT_MS + 500);
  await receiver.listen();
});
afterEach(() => receiver.close());

const subscriptionOf = (name: string): WebhookSubscription => ({ name, models: ['order'], url: receiver.url, secret: receiver.secret });

const SEED = Number(process.env.FEED_SEED ?? Date.now() % 100_000);

test(`every change sent reaches a flaky endpoint at least once or becomes a dead letter, in commit order per record, with one webhook-id through its retries (seed ${SEED})`, async () => {
  const next = seeded(SEED);
  receiver.behave = () => {
    const x = next();
    return x < 0.55 ? 'ok' : x < 0.8 ? 'fail' : x < 0.9 ? 'hang' : 'late';
  };
  const subscription = subscriptionOf('flaky');
  const worker = new OutboxWorker({ subscriptions: [subscription], timeoutMs: TIMEOUT_MS });
  const outbox = new Outbox(Date.now, () => worker.poke());
  const changes = changeHistory('f', 12, 4);
  const deliveries: Delivery[] = changes.map((change) => ({ subscription: 'flaky', change }));
  // Sent in commit order, in batches as the stream's consumer sends them, a batch twice (a stream record read again).
  for (let i = 0; i < deliveries.length; i += 10) await outbox.send(deliveries.slice(i, i + 10));
  await outbox.send(deliveries.slice(10, 20));
  await drain(worker, clock);

  await expectDeliveredOrDead('flaky', changes, receiver);
  expect(await pendingCount('flaky')).toBe(0);
}, 120_000);

test('an endpoint that never answers 2xx is tried on the whole schedule, then the change is a dead letter, and the record goes on; replayed, it is delivered with its webhook-id', async () => {
  const subscription = subscriptionOf('down');
  const worker = new OutboxWorker({ subscriptions: [subscription], timeoutMs: TIMEOUT_MS });
  const outbox = new Outbox(Date.now, () => worker.poke());
  const [first, second] = changeHistory('d', 1, 2);
  const behaviours: Behaviour[] = ['fail', 'hang', 'fail', 'late', 'fail', 'fail', 'fail', 'fail'];
  receiver.behave = ({ data }) => (data.change_id === first.change_id ? (behaviours.shift() ?? 'ok') : 'ok');
  const started = Date.now();
  await outbox.send([
    { subscription: 'down', change: first },
    { subscription: 'down', change: second },
  ]);
  await drain(worker, clock);

  const attempts = receiver.received.filter((r) => r.id === first.change_id);
  expect(attempts.map((r) => r.behaviour)).toEqual(['fail', 'hang', 'fail', 'late', 'fail', 'fail', 'fail', 'fail']);
  // Each attempt after the one before by the schedule's delay (the clock was moved there).
  const gaps = attempts.slice(1).map((r, i) => r.timestamp - attempts[i].timestamp);
  for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS[i + 1]);
  expect(attempts[0].timestamp - Math.floor(started / 1000)).toBeLessThanOrEqual(1);
  // The record's next change waited for the first to be dead, then went.
  const secondAt = receiver.received.findIndex((r) => r.id === second.change_id);
  expect(secondAt).toBe(receiver.received.length - 1);
  expect((await lastDelivered('down'))?.change_id).toBe(second.change_id);

  const letters = [];
  for await (const letter of deadLetters('down')) letters.push(letter);
  expect(letters).toEqual([{ delivery: { subscription: 'down', change: first }, attempts: 8, failure: 'status 503', at: expect.any(String) }]);

  // Replayed: queued again with the same change, delivered, and the dead letter gone.
  expect(await localFeedState('down')).toMatchObject({
    pending: 0,
    dead_letters: 1,
    newest_dead_letters: [
      {
        change_id: first.change_id,
        model: first.model,
        id: first.id,
        op: first.op,
        version: first.version,
        attempts: 8,
        last_failure: 'status 503',
        at: letters[0].at,
      },
    ],
  });
  expect(await replayDeadLetters('down', outbox)).toBe(1);
  await drain(worker, clock);
  expect(receiver.received.at(-1)).toMatchObject({ id: first.change_id, behaviour: 'ok' });
  expect(new Set(receiver.received.filter((r) => r.id === first.change_id).map((r) => JSON.stringify(r.body)))).toHaveProperty('size', 1);
  for await (const _ of deadLetters('down')) throw new Error('a dead letter left after its replay');
}, 120_000);

test('a hung endpoint holds back only its own records: the other subscription is served meanwhile', async () => {
  const other = new WebhookReceiver();
  await other.listen();
  try {
    const slow = subscriptionOf('slow');
    const fast: WebhookSubscription = { name: 'fast', models: ['order'], url: other.url, secret: other.secret };
    receiver.behave = () => 'hang';
    const worker = new OutboxWorker({ subscriptions: [slow, fast], timeoutMs: 60_000 });
    const outbox = new Outbox(Date.now, () => worker.poke());
    const changes = changeHistory('h', 3, 2);
    await outbox.send(
      changes.flatMap((change) => [
        { subscription: 'slow', change },
        { subscription: 'fast', change },
      ]),
    );
    await worker.wake();
    for (let i = 0; i < 200 && other.acknowledged().size < changes.length; i++) await sleep(50);
    expect(other.acknowledged()).toEqual(new Set(changes.map((c) => c.change_id)));
    // One attempt per record of the hung subscription is under way, none of their second changes.
    expect(new Set(receiver.received.map((r) => r.body.data.version))).toEqual(new Set([1]));
    await receiver.close();
    await worker.stop();
  } finally {
    await other.close();
  }
}, 60_000);

test("an endpoint that stopped answering holds the worker's slots only until its breaker opens: the other subscription's retries get them", async () => {
  const other = new WebhookReceiver();
  await other.listen();
  try {
    receiver.behave = () => 'hang';
    const slots = 2;
    const worker = new OutboxWorker({
      subscriptions: [subscriptionOf('gone'), { ...subscriptionOf('served'), url: other.url, secret: other.secret }],
      concurrency: slots,
      timeoutMs: 300,
    });
    const outbox = new Outbox(Date.now, () => worker.poke());
    // The hung one's deliveries first: each look of the worker starts them before the other's.
    const hung = changeHistory('g', 4 * BREAKER.timeoutsToOpen, 1);
    const served = changeHistory('s', 4, 1);
    await outbox.send([...hung.map((change) => ({ subscription: 'gone', change })), ...served.map((change) => ({ subscription: 'served', change }))]);
    await worker.settle();
    expect(other.acknowledged()).toEqual(new Set(served.map((c) => c.change_id)));
    // Without the breaker every one of the 20 held a slot for its timeout before the other's turn.
    expect(receiver.received.length).toBeLessThanOrEqual(BREAKER.timeoutsToOpen + slots);
    expect(await pendingCount('gone')).toBe(hung.length);
    await worker.stop();
  } finally {
    await other.close();
  }
}, 60_000);

test('a record deleted and created again within one second is delivered in the order sent, each change once however often it is sent', async () => {
  const subscription = subscriptionOf('again');
  const worker = new OutboxWorker({ subscriptions: [subscription], timeoutMs: TIMEOUT_MS });
  const outbox = new Outbox();
  const time = '2026-11-27T09:00:00.000Z';
  const id = 'again-rec';
  const change = (n: number, op: 'create' | 'update' | 'delete', version: number) => ({ change_id: `again-${n}`, model: 'order', id, op, version, time });
  const changes = [change(1, 'create', 1), change(2, 'update', 2), change(3, 'delete', 2), change(4, 'create', 1), change(5, 'update', 2)];
  const deliveries = changes.map((c) => ({ subscription: 'again', change: c }));
  await outbox.send(deliveries.slice(0, 3));
  await outbox.send(deliveries.slice(1));
  await outbox.send(deliveries);
  expect(await pendingCount('again')).toBe(changes.length);
  await drain(worker, clock);
  expect(receiver.received.map((r) => r.id)).toEqual(changes.map((c) => c.change_id));
});
