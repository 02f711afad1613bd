import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApi } from '../support/api';
import { useSteerableProxy } from '../support/steerable-proxy';
import { spyOnLog } from '../support/log';
import { goCqhttp, napCat, type Json } from '../support/onebot-senders';
import { groupMessage, groupPoke, spoolDrained, storedEvents } from './onebot-fixtures';

// No OneBot sender re-sends after an HTTP error, so an event answered 5xx is lost. With the
// database cut mid-run, every verified delivery must still be acknowledged, kept in the spool
// under DATA_DIR, and stored exactly once when the database is back, without anyone acting.
const SECRET = 'outage-secret';
process.env.ONEBOT_SECRET = SECRET;
process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-outage-'));

const api = useApi();
const proxy = useSteerableProxy();

const url = () => `${api.url}/onebot/v11/`;
const GROUP = 30501;

test('database cut mid-run: every acknowledged event is stored exactly once after it is back', async () => {
  const log = spyOnLog('warn');
  const napcat = napCat({ selfId: 20501, token: SECRET, time: () => 1_810_000_000 });
  const gocq = goCqhttp({ selfId: 20502, secret: SECRET });
  const poke = (i: number): Json => groupPoke(GROUP, 40000 + i, 20501);
  const message = (i: number): Json => groupMessage(GROUP, 7000 + i, 40000 + i, `m${i}`);

  // One go-cqhttp message stored before the cut, whose re-send arrives during it.
  const early = message(0);
  const earlyBytes = gocq.serialize(early);
  expect((await gocq.resend(url(), early, earlyBytes)).status).toBe(200);

  const statuses: number[] = [];
  for (let i = 1; i <= 24; i++) {
    if (i === 8) await proxy.set('refuse');
    if (i === 18) await proxy.set('pass');
    statuses.push((await napcat.post(url(), poke(i))).status!);
    statuses.push((await gocq.post(url(), message(i))).status!);
    if (i === 10) {
      // During the cut: the go-cqhttp re-send, and NapCat's second identical poke in one second.
      statuses.push((await gocq.resend(url(), early, earlyBytes)).status!);
      statuses.push((await napcat.post(url(), poke(i))).status!);
    }
  }
  expect(statuses.every((s) => s === 200)).toBe(true);
  expect(log.mock.calls.some(([line]) => String(line).includes('onebot_event_kept'))).toBe(true);
  await spoolDrained(20_000);

  const pokes = await storedEvents(api, { self_id: 20501 });
  const counts = new Map<number, number>();
  for (const e of pokes) counts.set(Number(e.user_id), (counts.get(Number(e.user_id)) ?? 0) + 1);
  expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(Array.from({ length: 24 }, (_, k) => [40001 + k, k + 1 === 10 ? 2 : 1])));
  const messages = await storedEvents(api, { self_id: 20502 });
  expect(messages.map((e) => Number(e.message_id)).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, k) => 7000 + k));
  // Stored late, received on time: the record keeps when the sender was answered.
  const late = messages.find((e) => Number(e.message_id) === 7009)!;
  expect(Date.parse(late._created_at) - Date.parse(late.received_at)).toBeGreaterThan(0);
  log.mockRestore();
}, 60_000);

test('an event too big for a record is kept whole in the data directory, with a record pointing at it', async () => {
  const sender = napCat({ selfId: 20503, token: SECRET });
  const big: Json = {
    post_type: 'notice',
    notice_type: 'group_upload',
    group_id: GROUP,
    user_id: 40100,
    file: { id: 'f', name: 'x'.repeat(600_000), size: 1, busid: 1 },
  };
  const bytes = sender.serialize(big);
  expect(bytes.length).toBeGreaterThan(400 * 1024);
  expect((await sender.resend(url(), big, bytes)).status).toBe(200);
  const [stored] = await storedEvents(api, { self_id: 20503 });
  expect(stored.event).toBeUndefined();
  expect(stored).toMatchObject({
    post_type: 'notice',
    detail_type: 'group_upload',
    group_id: GROUP,
    event_ref: { bytes: bytes.length, location: expect.stringMatching(/^file:onebot-events\//) },
  });
  expect(readFileSync(join(process.env.DATA_DIR!, stored.event_ref.location.slice(5))).equals(bytes)).toBe(true);
});
