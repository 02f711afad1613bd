import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { FEED_QUEUE } from '../../infra/feed';
import { DEAD_LETTER_LOG_CODE } from '../../shared/feed/deliver-queued';
import type { Change } from '../../shared/feed/change';
import { deadLetters } from '../../shared/feed/dead-letters';
import { RETRY_SCHEDULE_SECONDS } from '../../shared/feed/schedule';
import { reaction } from '../../shared/models/reaction';
import { settings } from '../../shared/config';
import { recordLayout } from '../../shared/store/layout/index-build';
import { adminClient } from '../../scripts/local/engine';
import { startArtifactApi, type ArtifactApi } from '../support/artifact/api';
import { EventBridgeStandIn } from '../support/eventbridge-standin';
import { SqsModel } from '../support/sqs-model';
import { passesRecordItemsFilter } from '../support/record-items-filter';
import { streamSoFar } from '../support/stream-records';
import { WebhookReceiver } from '../support/webhook-receiver';

// The change feed's two bundles from cdk.out, run as Lambda runs them, with events as AWS builds
// them: functions/feed with a DynamoDB stream event made of the engine's own stream records (the
// writes made through the record bundles, filtered as the event source mapping's filter passes
// them), functions/feed_delivery with the SQS FIFO events of the queue model
// (test/support/sqs-model.ts) on a clock it moves; a webhook receiver that verifies every
// signature with the standardwebhooks library, and an EventBridge stand-in.
const TOKEN = 'artifact-feed-token';
const hook = new WebhookReceiver();
const bridge = new EventBridgeStandIn();
const queue = new SqsModel({
  fifo: true,
  batchSize: FEED_QUEUE.batchSize,
  visibilitySeconds: FEED_QUEUE.visibilitySeconds,
  maxReceiveCount: RETRY_SCHEDULE_SECONDS.length + FEED_QUEUE.spareReceives,
  retentionSeconds: FEED_QUEUE.retentionDays * 86_400,
  deadLetterRetentionSeconds: FEED_QUEUE.deadLetterRetentionDays * 86_400,
});
let service: ArtifactApi;
let streamArn: string;
/** Stream records already handed to the feed bundle. */
let seen = 0;

beforeAll(async () => {
  await Promise.all([hook.listen(), bridge.listen(), queue.listen()]);
  const subscriptions = [
    { name: 'hook', models: ['reaction'], url: hook.url, secret: hook.secret },
    { name: 'bus', models: ['reaction'], ops: ['create', 'update'], bus: 'partner-bus' },
  ];
  const secrets: Record<string, string> = { API_TOKENS: JSON.stringify({ [TOKEN]: ['read', 'write', 'admin'] }), SUBSCRIPTIONS: JSON.stringify(subscriptions) };
  service = await startArtifactApi({
    engine: process.env.DYNAMODB_ENDPOINT!,
    table: process.env.TABLE_NAME!,
    secrets: (name) => secrets[name],
    resources: { FEED_QUEUE_URL: queue.url },
    endpoints: { AWS_ENDPOINT_URL_EVENTBRIDGE: bridge.url },
  });
  await recordLayout(reaction);
  const admin = adminClient(process.env.DYNAMODB_ENDPOINT!);
  streamArn = (await admin.send(new DescribeTableCommand({ TableName: settings().TABLE_NAME }))).Table!.LatestStreamArn!;
  admin.destroy();
  // The SDK warns that the queue URL's host is not SQS's regional endpoint: true here, and noise.
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await service?.stop();
  await Promise.all([hook.close(), bridge.close(), queue.close()]);
});

const write = async (op: string, body: unknown) => {
  const r = await fetch(`${service.url}/api/db/reaction/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  expect(r.status).toBeLessThan(300);
  return ((await r.json()) as { data: unknown }).data;
};

/** The event Lambda builds from the stream records written since the last one: the mapping's filter applied, its stream's ARN on each. */
async function nextStreamEvent(): Promise<DynamoDBStreamEvent> {
  const records = await streamSoFar();
  const fresh = records.slice(seen);
  seen = records.length;
  const passes = (r: DynamoDBRecord) => passesRecordItemsFilter(r.dynamodb?.Keys?.pk?.S);
  return { Records: fresh.filter(passes).map((r) => ({ ...r, eventSourceARN: streamArn })) };
}

const answerOf = async (fn: string, event: unknown) => {
  const invocation = await service.invoke(fn, event);
  if (invocation.kind !== 'answer') throw new Error(`${fn} failed: ${JSON.stringify(invocation)}`);
  return invocation.result as unknown;
};
const deliver = () => queue.run((event: SQSEvent) => answerOf('feed_delivery', event) as Promise<SQSBatchResponse>, Number.POSITIVE_INFINITY);
/** What each record's changes became, in the order received, per record id. */
function perRecord(told: Array<{ id: string; line: string }>): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const { id, line } of told) groups[id] = [...(groups[id] ?? []), line];
  return groups;
}

test('writes through the bundles reach the webhook, signed, and the bus, one change per committed write, in commit order per record', async () => {
  const { id: a } = (await write('create', { data: { user_id: 1, content: 'first' } })) as { id: string };
  const { id: b } = (await write('create', { data: { user_id: 2, content: 'second' } })) as { id: string };
  await write('update', { filters: { id: a }, values: { content: 'first, edited' } });
  await write('update', { filters: { id: b }, values: { content: 'second, edited' } });
  await write('delete', { filters: { id: a } });
  // Refused: nothing committed, nothing told.
  const refused = await fetch(`${service.url}/api/db/reaction/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ data: { user_id: 'not a number' } }),
  });
  expect(refused.status).toBe(422);

  const event = await nextStreamEvent();
  expect(event.Records.map((r) => r.eventName)).toEqual(['INSERT', 'INSERT', 'MODIFY', 'MODIFY', 'REMOVE']);
  expect(await answerOf('feed', event)).toEqual({ batchItemFailures: [] });

  // The bus: creates and updates (the subscription's ops), as EventBridge took them.
  const told = bridge.events.map((e) => ({ id: (e.detail as Change).id, line: `${e.detailType} v${(e.detail as Change).version}` }));
  expect(perRecord(told)).toEqual({ [a]: ['reaction.create v1', 'reaction.update v2'], [b]: ['reaction.create v1', 'reaction.update v2'] });
  for (const e of bridge.events) expect(e).toMatchObject({ bus: 'partner-bus', source: 'recordgate' });

  // The webhook: every change, signed (the receiver refused none), order per record.
  await deliver();
  expect(hook.refused).toEqual([]);
  const received = hook.received.map((r) => ({ id: r.body.data.id, line: `${r.body.type} v${r.body.data.version}` }));
  expect(perRecord(received)).toEqual({
    [a]: ['reaction.create v1', 'reaction.update v2', 'reaction.delete v2'],
    [b]: ['reaction.create v1', 'reaction.update v2'],
  });
  for (const r of hook.received) expect(r.id).toBe(r.body.data.change_id);
  expect(hook.received.find((r) => r.body.type === 'reaction.update' && r.body.data.id === a)!.body.data).toMatchObject({
    before: { content: 'first' },
    after: { content: 'first, edited' },
  });
}, 120_000);

test("an entry EventBridge refuses is its record's batch item failure, and the record and those after it are told again", async () => {
  const { id } = (await write('create', { data: { user_id: 3, content: 'refused once' } })) as { id: string };
  await write('create', { data: { user_id: 4, content: 'after it' } });
  const event = await nextStreamEvent();
  bridge.refuse = (e) => ((e.detail as Change).id === id ? 'InternalFailure' : undefined);
  const answer = (await answerOf('feed', event)) as { batchItemFailures: Array<{ itemIdentifier: string }> };
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0].dynamodb!.SequenceNumber }]);
  // Lambda sends the batch again from the failed record; this time EventBridge takes it.
  bridge.refuse = () => undefined;
  expect(await answerOf('feed', event)).toEqual({ batchItemFailures: [] });
  expect(bridge.events.filter((e) => (e.detail as Change).id === id).map((e) => e.detailType)).toEqual(['reaction.create']);
}, 120_000);

test('a webhook failing every attempt is retried on the schedule, keeping its webhook-id, then dead-lettered in the table', async () => {
  const { id } = (await write('create', { data: { user_id: 5, content: 'never taken' } })) as { id: string };
  hook.behave = (body) => (body.data.id === id ? 'fail' : 'ok');
  expect(await answerOf('feed', await nextStreamEvent())).toEqual({ batchItemFailures: [] });
  const start = queue.now;
  await deliver();
  const attempts = hook.received.filter((r) => r.body.data.id === id);
  expect(attempts).toHaveLength(RETRY_SCHEDULE_SECONDS.length);
  expect(new Set(attempts.map((r) => r.id)).size).toBe(1);
  // The schedule's delays, each one ChangeMessageVisibility of the queue model's clock.
  expect(queue.now - start).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS.reduce((x, y) => x + y, 0) * 1000);
  expect(queue.deadLetters).toEqual([]);
  const letters = [];
  for await (const letter of deadLetters('hook')) letters.push(letter);
  expect(letters.map((l) => [l.delivery.change.id, l.attempts])).toEqual([[id, RETRY_SCHEDULE_SECONDS.length]]);
  // The line the stack's metric filter counts (infra/feed.ts), as the bundle writes it.
  expect(service.sandboxes.get('feed_delivery')!.logs.filter((line) => line.includes(DEAD_LETTER_LOG_CODE))).toHaveLength(1);
}, 120_000);

const admin = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, data: ((await r.json()) as { data: Record<string, any> }).data }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

test('the admin routes from their bundles: GET /api/feed counts the SQS queue, and the dead letter goes back through it with its webhook-id', async () => {
  const [letter] = await (async () => {
    const all = [];
    for await (const l of deadLetters('hook')) all.push(l);
    return all;
  })();
  const dead = letter.delivery.change;
  const state = await admin('GET', '/api/feed');
  // The bus subscription keeps no deliveries here; in AWS pending is the queue's, not a subscription's.
  expect(state).toEqual({
    status: 200,
    data: {
      subscriptions: [
        {
          name: 'hook',
          dead_letters: 1,
          newest_dead_letters: [
            {
              change_id: dead.change_id,
              model: 'reaction',
              id: dead.id,
              op: 'create',
              version: 1,
              attempts: RETRY_SCHEDULE_SECONDS.length,
              last_failure: 'status 503',
              at: letter.at,
            },
          ],
          last_delivered: { change_id: expect.any(String), at: expect.any(String) },
        },
      ],
      queued: queue.queue.size,
    },
  });

  hook.behave = () => 'ok';
  expect(await admin('POST', '/api/feed/hook/replay', { dead_letters: true })).toEqual({ status: 200, data: { subscription: 'hook', queued: 1 } });
  expect((await admin('GET', '/api/feed')).data.queued).toBe(queue.queue.size);
  await deliver();
  expect(hook.received.filter((r) => r.id === dead.change_id).at(-1)).toMatchObject({ behaviour: 'ok', body: { data: dead } });
  expect((await admin('GET', '/api/feed')).data.subscriptions[0]).toMatchObject({ dead_letters: 0, last_delivered: { change_id: dead.change_id } });
  expect((await admin('POST', '/api/feed/bus/replay', { dead_letters: true })).status).toBe(400);
}, 120_000);

test('a replay since a time from its bundle reads the stream and sends what the subscription matches through SQS', async () => {
  const since = new Date(Date.now() - 3600_000).toISOString();
  // Past SQS's five-minute deduplication window of every send so far (the dead letter's replay
  // above among them), so every change is queued again.
  queue.now += 5 * 60_000;
  const before = hook.received.length;
  // Every change of this file's table: the webhook subscription takes every reaction change.
  const changes = (await streamSoFar()).filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('reaction#')).length;
  expect(await admin('POST', '/api/feed/hook/replay', { since })).toEqual({ status: 200, data: { subscription: 'hook', queued: changes } });
  await deliver();
  const again = hook.received.slice(before);
  expect(again).toHaveLength(changes);
  for (const r of again) expect(r.id).toBe(r.body.data.change_id);
}, 120_000);

test('the feed bundle sends nothing to the table; the delivery and admin bundles only what their roles may', () => {
  expect([...service.actionsSent.get('feed')!]).toEqual([]);
  for (const name of ['feed_delivery', 'feed_status', 'feed_replay']) {
    const granted = service.assembly.functions.get(name)!.tableActions;
    expect(service.actionsSent.get(name)!.size).toBeGreaterThan(0);
    for (const action of service.actionsSent.get(name)!) expect({ name, action, granted: granted.has(action) }).toEqual({ name, action, granted: true });
  }
});
