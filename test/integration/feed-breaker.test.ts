import { BREAKER, NOT_ATTEMPTED, noteAttempt, passage } from '../../shared/feed/breaker';
import { deadLetters } from '../../shared/feed/dead-letters';
import { deliverQueued } from '../../shared/feed/deliver-queued';
import { NO_ANSWER, type WebhookSubscription } from '../../shared/feed/deliver';
import { SqsDeliveryQueue } from '../../shared/feed/queue-sqs';
import { RETRY_SCHEDULE_SECONDS } from '../../shared/feed/schedule';
import { useClock } from '../support/clock';
import { changeHistory, firstAcknowledgedVersions } from '../support/feed-history';
import { stackFeedQueue } from '../support/feed-queue-model';
import type { SqsModel } from '../support/sqs-model';
import { WebhookReceiver } from '../support/webhook-receiver';

// The breaker of shared/feed/breaker.ts on the AWS delivery path: functions/feed_delivery's logic
// (shared/feed/deliver-queued.ts) draining the SQS FIFO model one message per invocation, as the
// stack's event source mapping hands them, on a clock the test moves, with the breaker's state in
// the real table. A hung endpoint is reached `timeoutsToOpen` times and then once per probe; its
// deliveries still go along the whole schedule (the skipped attempts counted), to the dead letters
// or, once it answers again, to the endpoint, in commit order per record; the other subscription
// is served throughout.
const clock = useClock();
/** Attempts of the hung endpoint time out this soon (15 s deployed). */
const TIMEOUT_MS = 300;
const DAY = 86_400_000;
process.env.AWS_ACCESS_KEY_ID = 'local';
process.env.AWS_SECRET_ACCESS_KEY = 'local';

let stuck: WebhookReceiver;
let fine: WebhookReceiver;
let model: SqsModel;
beforeEach(async () => {
  stuck = new WebhookReceiver();
  fine = new WebhookReceiver();
  await Promise.all([stuck.listen(), fine.listen()]);
  model = stackFeedQueue();
  await model.listen();
  process.env.FEED_QUEUE_URL = model.url;
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(async () => {
  await Promise.all([stuck.close(), fine.close(), model.close()]);
});

const subscriptionsOf = (prefix: string): WebhookSubscription[] => [
  { name: `${prefix}-stuck`, models: ['order'], url: stuck.url, secret: stuck.secret },
  { name: `${prefix}-fine`, models: ['order'], url: fine.url, secret: fine.secret },
];

/** The event source mapping until `until` (model time), the process clock kept at the model's. */
const drain = (subscriptions: WebhookSubscription[], until: number) =>
  model.run(
    (event) => deliverQueued(event, { subscriptions, timeoutMs: TIMEOUT_MS }),
    until,
    async (now) => clock.advance(Math.max(0, now - Date.now())),
  );

async function lettersOf(subscription: string) {
  const letters = [];
  for await (const letter of deadLetters(subscription)) letters.push(letter);
  return letters;
}

/** Sends each change to both subscriptions, the hung one's first: every healthy delivery queued behind hung ones. */
async function sendBoth(prefix: string, records: number, versions: number) {
  const changes = changeHistory(prefix, records, versions);
  const [hung, healthy] = subscriptionsOf(prefix);
  await new SqsDeliveryQueue().send([
    ...changes.map((change) => ({ subscription: hung.name, change })),
    ...changes.map((change) => ({ subscription: healthy.name, change })),
  ]);
  return changes;
}

test('an endpoint that never answers is reached only until its breaker opens and by one probe at a time; its changes still take the whole schedule to the dead letters', async () => {
  stuck.behave = () => 'hang';
  const changes = await sendBoth('b1', 8, 2);
  const start = model.now;
  await drain(subscriptionsOf('b1'), start + 4 * DAY);

  expect(model.queue.size + model.deadLetters.length).toBe(0);
  // The healthy subscription: every change, in commit order per record, none of them behind a hung attempt's retries.
  expect(new Set(fine.received.map((r) => r.id))).toEqual(new Set(changes.map((c) => c.change_id)));
  for (const versions of firstAcknowledgedVersions(fine.received).values()) expect(versions).toEqual([1, 2]);
  // Without the breaker the endpoint holds a slot for every attempt: 16 changes of 8 each, 128.
  // With it, those before it opened and then one probe per open period that came due (each
  // reopening it): at most one per step of a change's schedule, fewer than 2 per change.
  const hung = stuck.received.length;
  const probes = hung - BREAKER.timeoutsToOpen;
  expect(probes).toBeGreaterThanOrEqual(1);
  expect(hung).toBeLessThan(changes.length * 2);
  // Every change of the hung one a dead letter after the schedule's eight attempts, skipped ones counted.
  const letters = await lettersOf('b1-stuck');
  expect(letters.map((l) => l.delivery.change.change_id).sort()).toEqual(changes.map((c) => c.change_id).sort());
  for (const letter of letters) {
    expect(letter.attempts).toBe(RETRY_SCHEDULE_SECONDS.length);
    expect([NO_ANSWER, NOT_ATTEMPTED]).toContain(letter.failure);
  }
  // A record's second change went only once its first was dead, and then took its own whole
  // schedule (within a second: the process clock runs on in real time between the model's steps).
  const deadAt = new Map(letters.map((l) => [l.delivery.change.change_id, Date.parse(l.at)]));
  const schedule = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) * 1000;
  for (const [first, second] of [...Array(8).keys()].map((r) => [changes[r], changes[r + 8]]))
    expect(deadAt.get(second.change_id)! - deadAt.get(first.change_id)!).toBeGreaterThan(schedule - 1000);
}, 180_000);

test('once the endpoint answers again, the probe closes the breaker and every held-back change is delivered, in commit order per record', async () => {
  stuck.behave = () => 'hang';
  const changes = await sendBoth('b2', 8, 2);
  const start = model.now;
  // Up to the schedule's third attempt: the breaker opened, the healthy one was served.
  await drain(subscriptionsOf('b2'), start + 60_000);
  expect(stuck.received).toHaveLength(BREAKER.timeoutsToOpen);
  expect(new Set(fine.received.map((r) => r.id))).toEqual(new Set(changes.map((c) => c.change_id)));

  stuck.behave = () => 'ok';
  await drain(subscriptionsOf('b2'), start + 4 * DAY);
  expect(model.queue.size + model.deadLetters.length).toBe(0);
  expect(await lettersOf('b2-stuck')).toEqual([]);
  expect(stuck.acknowledged()).toEqual(new Set(changes.map((c) => c.change_id)));
  for (const versions of firstAcknowledgedVersions(stuck.received).values()) expect(versions).toEqual([1, 2]);
  // Reached by those before it opened, then by what came after the probe that closed it: nothing more hung.
  expect(stuck.received.filter((r) => r.behaviour === 'hang')).toHaveLength(BREAKER.timeoutsToOpen);
}, 180_000);

test('after the pause one deliverer of many at once wins the probe; its silence pauses the subscription again, an answer resumes it', async () => {
  const now = Date.now();
  for (let i = 0; i < BREAKER.timeoutsToOpen; i++) await noteAttempt('b3', false, now);
  expect(await passage('b3', now + 1)).toBe('skip');
  const after = now + BREAKER.openMs;
  const many = await Promise.all(Array.from({ length: 10 }, () => passage('b3', after)));
  expect(many.filter((p) => p === 'probe')).toHaveLength(1);
  expect(many.filter((p) => p === 'skip')).toHaveLength(9);
  // The probe went unanswered: paused for another period, no probe meanwhile.
  await noteAttempt('b3', false, after + 10);
  expect(await passage('b3', after + 10 + BREAKER.openMs - 1)).toBe('skip');
  const again = after + 10 + BREAKER.openMs;
  expect(await passage('b3', again)).toBe('probe');
  await noteAttempt('b3', true, again + 10);
  expect(await passage('b3', again + 20)).toBe('attempt');
});
