import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApi } from '../support/api';
import { deliver, storedEvents } from './onebot-fixtures';

// Issue 30, finding 8: an event the docs accept is stored, exactly and without touching a
// prototype, even where DynamoDB cannot hold it as a map (the record points at the body kept
// whole); the one refusal left, a duplicated key, is the one docs/onebot.md lists.
process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-odd-'));
delete process.env.ONEBOT_SECRET;

const api = useApi();
let nextBot = 23_100;

/** The stored body of an event kept whole beside the table. */
const keptBody = (ref: { location: string }): string => readFileSync(join(process.env.DATA_DIR!, ref.location.slice('file:'.length)), 'utf8');

test.each([
  ['an empty key', '{"post_type":"notice","notice_type":"x","":1}'],
  ['an empty key deep in the sender', '{"post_type":"message","message_type":"private","user_id":1,"message":"hi","sender":{"":{"":2}}}'],
  ['a __proto__ key', '{"post_type":"notice","notice_type":"x","__proto__":{"polluted":true}}'],
  [
    'a constructor key in segment data',
    '{"post_type":"message","message_type":"private","user_id":1,"message":[{"type":"text","data":{"text":"hi","constructor":{"prototype":{"polluted":true}}}}]}',
  ],
])('%s: 200 {}, stored once, the body kept byte for byte, no prototype touched', async (_name, body) => {
  const bot = nextBot++;
  const r = await deliver(api, '/onebot/v11/', body, { selfId: String(bot) });
  expect([r.status, r.text]).toEqual([200, '{}']);
  const stored = await storedEvents(api, { self_id: bot });
  expect(stored).toHaveLength(1);
  expect(stored[0].event).toBeUndefined();
  expect(keptBody(stored[0].event_ref)).toBe(body);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('post_type "": 200 {}, stored as sent', async () => {
  const bot = nextBot++;
  const r = await deliver(api, '/onebot/v11/', '{"post_type":"","x":1}', { selfId: String(bot) });
  expect([r.status, r.text]).toEqual([200, '{}']);
  expect(await storedEvents(api, { self_id: bot })).toEqual([expect.objectContaining({ post_type: '', event: { post_type: '', x: 1 } })]);
});

test('a heartbeat whose status has an empty key still updates its bot; the status is in the event only', async () => {
  const bot = nextBot++;
  const body = JSON.stringify({
    post_type: 'meta_event',
    meta_event_type: 'heartbeat',
    self_id: bot,
    interval: 5000,
    status: { online: true, good: true, '': 1 },
  });
  expect((await deliver(api, '/onebot/v11/', body, { selfId: String(bot) })).status).toBe(200);
  const record = await api.post('/api/db/onebot_bot/get_one', { filters: { id: String(bot) } });
  expect(record.body.data).toMatchObject({ online: true, good: true, interval_ms: 5000 });
  expect(record.body.data.status).toBeUndefined();
  expect(await storedEvents(api, { self_id: bot })).toHaveLength(1);
});

test('a duplicated key: 400 malformed_json, nothing stored (which value is meant is not the receiver to guess)', async () => {
  const bot = nextBot++;
  const r = await deliver(api, '/onebot/v11/', '{"post_type":"notice","user_id":1,"user_id":2}', { selfId: String(bot) });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ status: 'error', data: { error: 'malformed_json' } });
  expect(await storedEvents(api, { self_id: bot })).toHaveLength(0);
});

// The other refusals docs/onebot.md lists, each with its code.
test.each([
  { name: 'nesting 31 levels', body: `{"post_type":"notice","deep":${'['.repeat(30)}${']'.repeat(30)}}`, status: 400, code: 'invalid_request' },
  { name: 'a number DynamoDB cannot hold', body: '{"post_type":"notice","user_id":1E+126}', status: 422, code: 'validation_error' },
])('$name: $status $code, nothing stored', async ({ body, status, code }) => {
  const bot = nextBot++;
  const r = await deliver(api, '/onebot/v11/', body, { selfId: String(bot) });
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ status: 'error', data: { error: code } });
  expect(await storedEvents(api, { self_id: bot })).toHaveLength(0);
});
