import { deadLetters } from '../../shared/feed/dead-letters';
import { deliverQueued } from '../../shared/feed/deliver-queued';
import type { WebhookSubscription } from '../../shared/feed/deliver';
import type { Delivery } from '../../shared/feed/queue';
import { SqsDeliveryQueue } from '../../shared/feed/queue-sqs';
import { RETRY_SCHEDULE_SECONDS } from '../../shared/feed/schedule';
import { useClock } from '../support/clock';
import { changeHistory, expectDeliveredOrDead, seeded } from '../support/feed-history';
import { SqsModel } from '../support/sqs-model';
import { WebhookReceiver } from '../support/webhook-receiver';

// The AWS delivery path of the change feed: the SQS FIFO queue (test/support/sqs-model.ts, its
// FIFO rules, on a clock the test moves) filled by SqsDeliveryQueue through the SDK, drained by
// functions/feed_delivery's logic (shared/feed/deliver-queued.ts) against the real engine (attempt
// counts, dead letters) and a receiver that fails, hangs and answers late at random, checking
// every signature with the standardwebhooks package.
process.env.AWS_ACCESS_KEY_ID = 'local';
process.env.AWS_SECRET_ACCESS_KEY = 'local';
const clock = useClock();
const TIMEOUT_MS = 1_500;
const DAY = 86_400_000;

let receiver: WebhookReceiver;
let model: SqsModel;
beforeEach(async () => {
  receiver = new WebhookReceiver(TIMEOUT_MS + 500);
  await receiver.listen();
  model = new SqsModel(
    { visibilitySeconds: 90, maxReceiveCount: 1000, retentionSeconds: 4 * 86_400, deadLetterRetentionSeconds: 14 * 86_400, batchSize: 10, fifo: true },
    Date.now(),
  );
  await model.listen();
  process.env.FEED_QUEUE_URL = model.url;
  // The SDK warns that the queue URL's host is not SQS's regional endpoint: true here, and noise.
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(async () => {
  await receiver.close();
  await model.close();
});

/** Runs the event source mapping until the queue is empty, the process clock kept at the model's. */
async function drain(subscriptions: WebhookSubscription[]): Promise<void> {
  await model.run(
    (event) => deliverQueued(event, { subscriptions, timeoutMs: TIMEOUT_MS }),
    model.now + 3 * DAY,
    async (now) => clock.advance(Math.max(0, now - Date.now())),
  );
}

const SEED = Number(process.env.FEED_SEED ?? Date.now() % 100_000);

test(`through SQS FIFO, every change reaches a flaky endpoint at least once or becomes a dead letter after the whole schedule, in commit order per record (seed ${SEED})`, async () => {
  const next = seeded(SEED);
  receiver.behave = () => {
    const x = next();
    return x < 0.55 ? 'ok' : x < 0.8 ? 'fail' : x < 0.9 ? 'hang' : 'late';
  };
  const subscription: WebhookSubscription = { name: 'orders', models: ['order'], url: receiver.url, secret: receiver.secret };
  const changes = changeHistory('q', 12, 4);
  const deliveries: Delivery[] = changes.map((change) => ({ subscription: 'orders', change }));
  const queue = new SqsDeliveryQueue();
  await queue.send(deliveries);
  // A stream batch run again: SQS's deduplication keeps one message each.
  await queue.send(deliveries.slice(0, 15));
  expect(model.queue.size).toBe(changes.length);
  await drain([subscription]);

  expect(model.queue.size + model.deadLetters.length).toBe(0);
  await expectDeliveredOrDead('orders', changes, receiver);
}, 180_000);

test('a change that keeps failing is tried on the schedule, then the record’s next changes go, each with retries of its own however often SQS handed it back unattempted', async () => {
  const subscription: WebhookSubscription = { name: 'down', models: ['order'], url: receiver.url, secret: receiver.secret };
  const [first, ...rest] = changeHistory('d', 1, 4);
  // Its next change fails once too: held back unattempted through its predecessor's eight
  // attempts (its SQS receive count grown with them), it still has its own retries.
  let nextFailed = false;
  receiver.behave = ({ data }) => {
    if (data.change_id === first.change_id) return 'fail';
    if (data.change_id !== rest[0].change_id || nextFailed) return 'ok';
    nextFailed = true;
    return 'fail';
  };
  await new SqsDeliveryQueue().send([first, ...rest].map((change) => ({ subscription: 'down', change })));
  await drain([subscription]);

  const attempts = receiver.received.filter((r) => r.id === first.change_id);
  expect(attempts).toHaveLength(RETRY_SCHEDULE_SECONDS.length);
  const gaps = attempts.slice(1).map((r, i) => r.timestamp - attempts[i].timestamp);
  for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS[i + 1]);
  // Its later changes waited until it was dead, then went in order.
  expect(receiver.received.slice(attempts.length).map((r) => [r.id, r.behaviour])).toEqual([
    [rest[0].change_id, 'fail'],
    ...rest.map((c) => [c.change_id, 'ok']),
  ]);
  const letters = [];
  for await (const letter of deadLetters('down')) letters.push(letter);
  expect(letters).toEqual([{ delivery: { subscription: 'down', change: first }, attempts: 8, failure: 'status 503', at: expect.any(String) }]);
}, 120_000);
