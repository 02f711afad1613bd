import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { BREAKER } from '../../shared/feed/breaker';
import { FEED_DELIVERY } from '../../shared/limits';
import { reaction } from '../../shared/models/reaction';
import { settings } from '../../shared/config';
import { recordLayout } from '../../shared/store/layout/index-build';
import { adminClient } from '../../scripts/local/engine';
import { startArtifactApi, type ArtifactApi } from '../support/artifact/api';
import { stackFeedQueue } from '../support/feed-queue-model';
import { mappedEvent, streamSoFar } from '../support/stream-records';
import { WebhookReceiver } from '../support/webhook-receiver';

// Isolation between subscribers as AWS runs the feed: the feed bundle fills the FIFO queue model
// from the table's real stream, and feed_delivery's bundle drains it with a bounded number of
// invocations at once (the event source mapping's maximum concurrency, scaled down), on the real
// clock, one message per invocation as the stack sets it. One subscriber hangs on many records,
// queued ahead of a healthy one's changes. Without the breaker each of its deliveries holds a
// slot until its attempt times out, and the healthy one waits for all of them; with it, only
// those made before the breaker opened (and the few a deliverer started on a healthy reading of a
// second ago) hold one.
const TOKEN = 'artifact-isolation-token';
/** The deliverer's timeout here: an attempt is cut off 3 s in (1 s kept for the answer, 2 s for writing its outcome). */
const DELIVERY_TIMEOUT_SECONDS = 6;
const HUNG_ATTEMPT_MS = (DELIVERY_TIMEOUT_SECONDS - 3) * 1000;
const SLOTS = 4;
const STUCK_RECORDS = 40;
const FINE_RECORDS = 8;

const stuck = new WebhookReceiver();
const fine = new WebhookReceiver();
const queue = stackFeedQueue();
let service: ArtifactApi;

beforeAll(async () => {
  await Promise.all([stuck.listen(), fine.listen(), queue.listen()]);
  const subscriptions = [
    { name: 'stuck', models: ['reaction'], filter: { content: 'stuck' }, url: stuck.url, secret: stuck.secret },
    { name: 'fine', models: ['reaction'], filter: { content: 'fine' }, url: fine.url, secret: fine.secret },
  ];
  const secrets: Record<string, string> = { API_TOKENS: JSON.stringify({ [TOKEN]: ['read', 'write'] }), SUBSCRIPTIONS: JSON.stringify(subscriptions) };
  service = await startArtifactApi({
    engine: process.env.DYNAMODB_ENDPOINT!,
    table: process.env.TABLE_NAME!,
    secrets: (name) => secrets[name],
    // Its 30 s made short, so that a hung attempt takes 3 s of the test instead of 15.
    timeoutSeconds: (configured, fn) => (fn === 'feed_delivery' ? DELIVERY_TIMEOUT_SECONDS : configured),
    resources: { FEED_QUEUE_URL: queue.url },
  });
  await recordLayout(reaction);
  // The SDK warns that the queue URL's host is not SQS's regional endpoint: true here, and noise.
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await service?.stop();
  await Promise.all([stuck.close(), fine.close(), queue.close()]);
});

test('a subscriber hanging on many records holds the deliverers only until its breaker opens: a healthy one queued behind it is served', async () => {
  expect(FEED_DELIVERY.timeoutSeconds).toBeGreaterThan(DELIVERY_TIMEOUT_SECONDS);
  stuck.behave = () => 'hang';
  const create = async (content: string) => {
    const r = await fetch(`${service.url}/api/db/reaction/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ data: { user_id: 1, content } }),
    });
    expect(r.status).toBe(201);
  };
  for (let i = 0; i < STUCK_RECORDS; i++) await create('stuck');
  for (let i = 0; i < FINE_RECORDS; i++) await create('fine');
  const admin = adminClient(process.env.DYNAMODB_ENDPOINT!);
  const streamArn = (await admin.send(new DescribeTableCommand({ TableName: settings().TABLE_NAME }))).Table!.LatestStreamArn!;
  admin.destroy();
  const feed = await service.invoke('feed', mappedEvent(await streamSoFar(), streamArn));
  expect(feed).toEqual({ kind: 'answer', result: { batchItemFailures: [] } });
  expect(queue.queue.size).toBe(STUCK_RECORDS + FINE_RECORDS);

  const deliver = async (event: SQSEvent) => {
    const invocation = await service.invoke('feed_delivery', event);
    if (invocation.kind !== 'answer') throw new Error(`feed_delivery failed: ${JSON.stringify(invocation)}`);
    return invocation.result as SQSBatchResponse;
  };
  const start = Date.now();
  await queue.runAtOnce(deliver, SLOTS, () => fine.received.length >= FINE_RECORDS);
  const servedInMs = Date.now() - start;

  expect(new Set(fine.received.map((r) => r.behaviour))).toEqual(new Set(['ok']));
  expect(fine.received).toHaveLength(FINE_RECORDS);
  // The slots the hung subscriber held: those attempted before the breaker opened (at most
  // TIMEOUTS_TO_OPEN, and those started beside the last of them), and at most one more per slot
  // whose deliverer read the breaker healthy within the last second. Without it: all 40.
  const hung = stuck.received.length;
  expect(hung).toBeGreaterThanOrEqual(BREAKER.timeoutsToOpen);
  expect(hung).toBeLessThanOrEqual(BREAKER.timeoutsToOpen + 2 * SLOTS);
  // And so in time: well short of every hung delivery holding a slot for its whole attempt.
  expect(servedInMs).toBeLessThan((STUCK_RECORDS / SLOTS) * HUNG_ATTEMPT_MS);
}, 180_000);
