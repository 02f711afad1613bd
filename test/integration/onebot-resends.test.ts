import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityOf, storeOnce, type EventData } from '../../shared/onebot/store/dedupe';
import type { OneBotEvent } from '../../shared/onebot/event';
import { senderOf } from '../../shared/onebot/senders';
import { useApi } from '../support/api';
import { goCqhttp, type Json } from '../support/onebot-senders';
import { useSteerableProxy } from '../support/steerable-proxy';
import { deliver, groupMessage, groupPoke, spoolDrained, storedEvents } from './onebot-fixtures';

// Issue 30, finding 6: go-cqhttp re-sends a delivery only when it got no answer within its 5 s
// timeout (server/http.go: any answer ends its loop). So an identical go-cqhttp delivery is a
// re-send only when the first was answered 5 s or more after it arrived, counted from its
// arrival (API Gateway's requestContext.timeEpoch), not from when its handler ran. Records and
// answers are asserted; the waits are lower bounds (a slow head or body), never budgets.
process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-resends-'));
delete process.env.ONEBOT_SECRET;

const api = useApi();
const proxy = useSteerableProxy();
const url = () => `${api.url}/onebot/v11/`;
const GROUP = 30030;

// A body that arrives late leaves the function less of its timeout; the store gets its own 4 s.
beforeAll(() => api.giveTime(30));

/** go-cqhttp's headers for these bytes (no secret here). */
const goHeaders = (selfId: number): Record<string, string> => ({
  'x-self-id': String(selfId),
  'user-agent': 'CQHttp/4.15.0',
  'content-type': 'application/json',
});

/** POSTs `bytes` with its head at once and its body `delayMs` later, as over a slow link. */
function postWithLateBody(selfId: number, bytes: Buffer, delayMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url(), { method: 'POST', headers: { ...goHeaders(selfId), 'content-length': String(bytes.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.flushHeaders();
    setTimeout(() => req.end(bytes), delayMs);
  });
}

describe('a go-cqhttp copy of a delivery answered 200 in time is another event, not a re-send', () => {
  test('with the database hung: the first is kept and answered {} at 4 s, the same bytes again are a second poke', async () => {
    const gocq = goCqhttp({ selfId: 23001 });
    const bytes = gocq.serialize(groupPoke(GROUP, 43001, 23001));
    await proxy.set('hang');
    try {
      for (let i = 0; i < 2; i++) {
        const r = await deliver(api, '/onebot/v11/', bytes, { selfId: '23001' });
        expect([r.status, r.text]).toEqual([200, '{}']);
      }
    } finally {
      await proxy.set('pass');
    }
    await spoolDrained(90_000);
    const stored = await storedEvents(api, { self_id: 23001 });
    expect(stored).toHaveLength(2);
    expect(stored.map((e) => e.answered_late)).toEqual([undefined, undefined]);
  }, 120_000);

  test('a copy whose body comes 1.7 s after its head is a second poke: the time counts from its arrival', async () => {
    const gocq = goCqhttp({ selfId: 23002 });
    const bytes = gocq.serialize(groupPoke(GROUP, 43002, 23002));
    expect((await deliver(api, '/onebot/v11/', bytes, { selfId: '23002' })).status).toBe(200);
    expect(await postWithLateBody(23002, bytes, 1_700)).toEqual({ status: 200, text: '{}' });
    const stored = await storedEvents(api, { self_id: 23002 });
    expect(stored).toHaveLength(2);
    // Received when its head came, not when its handler ran.
    const [first, second] = stored.map((e) => Date.parse(e.received_at)).sort((a, b) => a - b);
    expect(second - first).toBeLessThan(1_700);
  }, 60_000);
});

describe('a real re-send, after a first answered too late for go-cqhttp, is still merged', () => {
  test('a poke whose first delivery was answered 5.5 s after its head: its re-send is that event', async () => {
    const gocq = goCqhttp({ selfId: 23003, timeoutMs: 60_000 });
    const poke = groupPoke(GROUP, 43003, 23003);
    const bytes = gocq.serialize(poke);
    expect((await postWithLateBody(23003, bytes, 5_500)).status).toBe(200);
    expect((await gocq.resend(url(), poke, bytes)).status).toBe(200);
    await spoolDrained(60_000);
    const stored = await storedEvents(api, { self_id: 23003 });
    expect(stored).toHaveLength(1);
    expect(stored[0].answered_late).toBe(true);
  }, 60_000);

  test('a message whose first answer came too late: the re-send gets that answer, and the reply is sent once', async () => {
    const rule = { match: 'exact', pattern: 'ping late', reply: 'pong late' };
    expect((await api.post('/api/db/onebot_rule/create', { data: rule })).status).toBe(201);
    const gocq = goCqhttp({ selfId: 23004, timeoutMs: 60_000 });
    const message: Json = groupMessage(GROUP, 77_030, 43004, 'ping late');
    const bytes = gocq.serialize(message);
    const late = await postWithLateBody(23004, bytes, 5_500);
    // Answered, though go-cqhttp has stopped waiting: its re-send is the chance to act on it.
    expect(late.status).toBe(200);
    const again = await gocq.resend(url(), message, bytes);
    expect(again.sent).toBe('pong late');
    await spoolDrained(60_000);
    const stored = await storedEvents(api, { self_id: 23004 });
    expect(stored).toHaveLength(1);
    expect(stored[0].answered_late).toBe(true);
  }, 60_000);
});

// A first kept while the database hung is stored by the drain, after a re-send that came live:
// the earlier of the two decides, whichever is stored first. Stored through the receiver's own
// storeOnce, since which one the drain reaches first is not the test's to steer over HTTP.
describe('whichever of the two is stored first', () => {
  const goCq = senderOf({ 'user-agent': 'CQHttp/4.15.0' });
  const base = Date.now();
  const delivery = (event: Json, id: string, afterMs: number, late: boolean): EventData => ({
    self_id: 23005,
    post_type: 'notice',
    user_id: event.user_id,
    received_at: new Date(base + afterMs).toISOString(),
    delivery_id: id,
    ...(late ? { answered_late: true as const } : {}),
    sender: 'go-cqhttp',
    event,
  });

  test.each([
    { first: 'answered late', late: true, outcomes: ['new', 'resend'], records: 1 },
    { first: 'answered in time', late: false, outcomes: ['new', 'new'], records: 2 },
  ])('a first $first, stored after its copy that came 6.5 s later: $records record(s)', async ({ late, outcomes, records }) => {
    const event: Json = { ...groupPoke(GROUP, late ? 43005 : 43006, 23005), time: Math.floor(base / 1000) };
    const bytes = Buffer.from(JSON.stringify(event));
    const identity = identityOf(event as OneBotEvent, 23005);
    const copy = await storeOnce(identity, delivery(event, `copy-${late}`, 6_500, false), bytes, goCq, false);
    const first = await storeOnce(identity, delivery(event, `first-${late}`, 0, late), bytes, goCq, false);
    expect([copy.outcome, first.outcome]).toEqual(outcomes);
    expect(await storedEvents(api, { self_id: 23005, user_id: event.user_id })).toHaveLength(records);
  });
});
