import { spooled } from '../../shared/onebot/keep/spool';
import { useApi } from '../support/api';
import { spyOnLog } from '../support/log';
import { goCqhttp, napCat, type Json } from '../support/onebot-senders';
import { useSteerableProxy } from '../support/steerable-proxy';
import { tableSnapshot } from '../support/table-snapshot';
import { groupMessage, groupPoke, spoolDrained, storedEvents } from './onebot-fixtures';

// The engine accepts connections and never answers (or answers and the answer is lost): every
// call must end by itself, the function answer by itself before its timeout, and the next calls
// after the link heals succeed. Status, body and what is stored are asserted, never times.
const api = useApi();
const proxy = useSteerableProxy();

const reaction = (op: string) => `/api/db/reaction/${op}`;
const SEEDED = ['hung-0', 'hung-1', 'hung-2'];

/** The function's own answer to a call that got no answer: its code, message and Retry-After (middy's timeout is a 500). */
const NO_ANSWER = {
  status: 503,
  retryAfter: '1',
  body: { status: 'error', message: 'The database did not answer in time; retry later', data: { error: 'database_unavailable' } },
};

describe.each(['hang', 'drop'] as const)('engine that %ss', (mode) => {
  beforeAll(async () => {
    await proxy.set('pass');
    await api.post(reaction('delete'), { filters: {}, allow_all: true });
    const seeded = await api.post(reaction('create'), { ids: SEEDED, data: SEEDED.map((_, i) => ({ user_id: i, content: 'seeded' })) });
    expect(seeded.status).toBe(201);
  });

  test('every record route and health answer 503 by themselves, a sent write as outcome_unknown; once healed, the next calls succeed', async () => {
    const before = await tableSnapshot();
    await proxy.set(mode);
    const calls: Array<[string, () => ReturnType<typeof api.post>]> = [
      ['health', () => api.get('/api/db/health')],
      ['count', () => api.post(reaction('count'), {})],
      ['list', () => api.post(reaction('list'), {})],
      ['get_one', () => api.post(reaction('get_one'), { filters: { id: 'hung-0' } })],
      ['create', () => api.post(reaction('create'), { id: `made-while-${mode}`, data: { user_id: 9, content: 'new' } })],
      ['update', () => api.post(reaction('update'), { filters: { id: 'hung-1' }, values: { content: 'changed' } })],
      ['delete', () => api.post(reaction('delete'), { filters: { id: 'hung-2' } })],
    ];
    const answers = await Promise.all(calls.map(([, call]) => call()));
    for (const [i, [route]] of calls.entries()) {
      const r = answers[i];
      expect({ route, status: r.status, retryAfter: r.headers.get('retry-after') }).toEqual({
        route,
        status: NO_ANSWER.status,
        retryAfter: NO_ANSWER.retryAfter,
      });
      // A create sends its write first: with no answer it cannot know whether the write was applied, and says so.
      // The others read first, and a read with no answer means nothing was written.
      if (route === 'create') expect(r.body).toMatchObject({ status: 'error', data: { error: 'outcome_unknown', id: `made-while-${mode}` } });
      else expect(r.body).toMatchObject(route === 'health' ? { data: { error: 'database_unavailable' } } : NO_ANSWER.body);
    }

    await proxy.set('pass');
    const count = await api.post(reaction('count'), {});
    expect(count.status).toBe(200);
    const listed = await api.post(reaction('list'), {});
    expect(listed.status).toBe(200);
    expect((await api.get('/api/db/health')).status).toBe(200);
    if (mode === 'hang') {
      // Nothing reached the engine: the table is as it was, and the counts agree.
      expect(await tableSnapshot()).toEqual(before);
      expect(count.body.data.count).toBe(SEEDED.length);
    }
    const made = await api.post(reaction('create'), { id: `made-after-${mode}`, data: { user_id: 10, content: 'after' } });
    expect(made.status).toBe(201);
  }, 120_000);
});

test('the OneBot receiver keeps every delivery while the engine hangs, and stores each once after it heals', async () => {
  await proxy.set('pass');
  const log = spyOnLog('warn');
  const napcat = napCat({ selfId: 20601 });
  // A patient go-cqhttp (its timeout raised), so that the counts do not hang on the machine's speed.
  const gocq = goCqhttp({ selfId: 20602, timeoutMs: 60_000 });
  const url = `${api.url}/onebot/v11/`;
  const poke = (i: number): Json => groupPoke(30601, 41000 + i, 20601);
  const message = (i: number): Json => groupMessage(30601, 8000 + i, 41000 + i, `m${i}`);
  await proxy.set('hang');
  const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => [napcat.post(url, poke(i)), gocq.post(url, message(i))]).flat());
  expect(outcomes.map((o) => [o.status, o.attempts])).toEqual(outcomes.map(() => [200, 1]));
  expect(await spooled()).toHaveLength(12);
  expect(log.mock.calls.filter(([line]) => String(line).includes('"onebot_event_kept"'))).toHaveLength(12);
  log.mockRestore();

  await proxy.set('pass');
  await spoolDrained(90_000);
  const pokes = await storedEvents(api, { self_id: 20601 });
  expect(pokes.map((e) => Number(e.user_id)).sort()).toEqual([41000, 41001, 41002, 41003, 41004, 41005]);
  const messages = await storedEvents(api, { self_id: 20602 });
  expect(messages.map((e) => Number(e.message_id)).sort()).toEqual([8000, 8001, 8002, 8003, 8004, 8005]);
}, 180_000);
