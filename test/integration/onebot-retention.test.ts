import { useApi } from '../support/api';
import { storedItems } from '../support/stored';

// Heartbeats and lifecycle events expire through DynamoDB's TTL; other events stay.
const api = useApi();
const onebotEvent = { name: 'onebot_event', shards: 4 };
const deliver = (event: Record<string, unknown>) => api.post('/onebot/v11/', { time: 1700000000, self_id: 10001, ...event }, { 'x-self-id': '10001' });

beforeAll(() => {
  delete process.env.ONEBOT_SECRET;
});

afterEach(() => {
  delete process.env.ONEBOT_META_RETENTION_DAYS;
});

const ttlOf = async (post_type: string, sub: string) =>
  (await storedItems(onebotEvent)).find(
    (i) => (i.d as { post_type: string; sub_type?: string }).post_type === post_type && (i.d as { sub_type?: string }).sub_type === sub,
  )?._ttl;

test('a heartbeat expires after 7 days by default; a message never does', async () => {
  const before = Math.floor(Date.now() / 1000);
  expect(
    (await deliver({ post_type: 'meta_event', meta_event_type: 'heartbeat', sub_type: 'beat-a', status: { online: true, good: true }, interval: 5000 })).status,
  ).toBe(200);
  expect(
    (
      await deliver({
        post_type: 'message',
        message_type: 'private',
        sub_type: 'friend',
        message_id: 1,
        user_id: 2,
        message: 'hi',
        raw_message: 'hi',
        font: 0,
        sender: {},
      })
    ).status,
  ).toBe(200);
  const ttl = Number(await ttlOf('meta_event', 'beat-a'));
  expect(ttl).toBeGreaterThanOrEqual(before + 7 * 86_400);
  expect(ttl).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 7 * 86_400);
  expect(await ttlOf('message', 'friend')).toBeUndefined();
});

test('ONEBOT_META_RETENTION_DAYS sets the period; 0 keeps meta events', async () => {
  process.env.ONEBOT_META_RETENTION_DAYS = '1';
  await deliver({ post_type: 'meta_event', meta_event_type: 'lifecycle', sub_type: 'enable' });
  const ttl = Number(await ttlOf('meta_event', 'enable'));
  expect(ttl - Math.floor(Date.now() / 1000)).toBeGreaterThan(86_400 - 60);
  expect(ttl - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(86_400);
  process.env.ONEBOT_META_RETENTION_DAYS = '0';
  await deliver({ post_type: 'meta_event', meta_event_type: 'lifecycle', sub_type: 'connect' });
  expect(await ttlOf('meta_event', 'connect')).toBeUndefined();
});
