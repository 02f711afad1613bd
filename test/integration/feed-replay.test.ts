import { adminClient } from '../../scripts/local/engine';
import { checkSubscriptions } from '../../shared/feed/check-subscriptions';
import { changeOf } from '../../shared/feed/from-stream';
import { writeDeadLetter } from '../../shared/feed/dead-letters';
import { FEED_NEWEST_DEAD_LETTERS } from '../../shared/limits';
import { Outbox } from '../../shared/feed/outbox';
import { OutboxWorker } from '../../shared/feed/outbox-worker';
import { localFeedState, replayRange } from '../../shared/feed/replay';
import { streams } from '../../shared/feed/stream/client';
import { rangeFrom, readRange, streamArnOf } from '../../shared/feed/stream/read';
import { reaction } from '../../shared/models/reaction';
import { settings } from '../../shared/config';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { streamSoFar } from '../support/stream-records';
import { WebhookReceiver } from '../support/webhook-receiver';

// A replay from a point in time: the table's real stream read again from `since`
// (readRange), the changes a subscription matches queued again with their original change_id,
// and delivered, on both engines.
const api = useApi();
let receiver: WebhookReceiver;
beforeAll(async () => {
  await recordLayout(reaction);
  receiver = new WebhookReceiver();
  await receiver.listen();
});
afterAll(() => receiver.close());

test('a replay since a time re-sends each matching change of the stream with its own change_id, in order, and the state tells it delivered', async () => {
  const since = new Date();
  for (const [id, content] of [
    ['r1', 'heart'],
    ['r2', 'rocket'],
    ['r3', 'heart'],
  ])
    expect((await api.post('/api/db/reaction/create', { id, data: { user_id: 1, content } })).status).toBe(201);
  expect((await api.post('/api/db/reaction/update', { filters: { id: 'r1' }, values: { content: 'heart' } })).status).toBe(200);
  const told = (await Promise.all((await streamSoFar()).map(changeOf))).filter((c) => c !== undefined);
  const hearts = told.filter((c) => c.after?.content === 'heart');

  const [subscription] = await checkSubscriptions(
    JSON.stringify([{ name: 'hearts', models: ['reaction'], filter: { content: 'heart' }, url: receiver.url, secret: receiver.secret }]),
  );
  const worker = new OutboxWorker({ subscriptions: [subscription as never] });
  const outbox = new Outbox();
  const arn = await streamArnOf(adminClient(settings().DYNAMODB_ENDPOINT!), settings().TABLE_NAME);
  const range = { from: rangeFrom(since), until: Math.ceil(Date.now() / 1000) };
  expect(await replayRange(subscription, readRange(streams(), arn, range), outbox, () => true)).toEqual({ queued: hearts.length });
  expect(await localFeedState('hearts')).toEqual({ name: 'hearts', pending: hearts.length, dead_letters: 0, newest_dead_letters: [] });
  await worker.settle();
  // Each once, with the change as first told; per record in commit order (records apart go side by side).
  const byId = (a: { change_id: string }, b: { change_id: string }) => a.change_id.localeCompare(b.change_id);
  expect(receiver.received.map((r) => r.body.data).sort(byId)).toEqual([...hearts].sort(byId));
  const ofR1 = (list: Array<{ id: string; change_id: string }>) => list.filter((c) => c.id === 'r1').map((c) => c.change_id);
  expect(ofR1(receiver.received.map((r) => r.body.data))).toEqual(ofR1(hearts));
  expect(await localFeedState('hearts')).toEqual({
    name: 'hearts',
    pending: 0,
    dead_letters: 0,
    newest_dead_letters: [],
    last_delivered: { change_id: hearts.at(-1)!.change_id, at: expect.any(String) },
  });
});

test('the state counts every dead letter and shows the newest few, newest change first, without the records they carry', async () => {
  // Dead letters of changes committed a second apart, written in a shuffled order: the table keeps them by commit.
  const count = FEED_NEWEST_DEAD_LETTERS + 3;
  const changes = Array.from({ length: count }, (_, i) => ({
    change_id: `dead-${String(i).padStart(2, '0')}`,
    model: 'reaction',
    id: `d${i}`,
    op: 'update' as const,
    version: i + 2,
    time: new Date(Date.UTC(2026, 10, 27, 8, 0, i)).toISOString(),
    before: { id: `d${i}`, user_id: 1, content: 'heart', _created_at: '2026-11-27T07:00:00.000Z', _updated_at: '2026-11-27T07:00:00.000Z', _version: i + 1 },
    after: { id: `d${i}`, user_id: 1, content: 'heart', _created_at: '2026-11-27T07:00:00.000Z', _updated_at: '2026-11-27T08:00:00.000Z', _version: i + 2 },
  }));
  for (const i of [...changes.keys()].sort((a, b) => ((a * 7) % count) - ((b * 7) % count)))
    await writeDeadLetter({
      delivery: { subscription: 'window', change: changes[i] },
      attempts: 8,
      failure: `status ${500 + i}`,
      at: `2026-11-28T10:00:${String(i).padStart(2, '0')}.000Z`,
    });
  const state = await localFeedState('window');
  expect(state).toEqual({
    name: 'window',
    pending: 0,
    dead_letters: count,
    newest_dead_letters: changes
      .map((c, i) => ({
        change_id: c.change_id,
        model: 'reaction',
        id: c.id,
        op: 'update',
        version: c.version,
        attempts: 8,
        last_failure: `status ${500 + i}`,
        at: `2026-11-28T10:00:${String(i).padStart(2, '0')}.000Z`,
      }))
      .reverse()
      .slice(0, FEED_NEWEST_DEAD_LETTERS),
  });
});
