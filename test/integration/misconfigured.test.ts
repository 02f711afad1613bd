import { randomBytes } from 'node:crypto';
import { spooled } from '../../shared/onebot/keep/spool';
import { prepareTable } from '../../scripts/local/engine';
import { useApi } from '../support/api';
import { spyOnLog } from '../support/log';
import { napCat, type Json } from '../support/onebot-senders';
import { groupPoke, spoolDrained, storedEvents } from './onebot-fixtures';

// The service pointed at a table that does not exist, as after a typo in TABLE_NAME or a
// deleted table: not an outage to wait out but an operator's mistake, answered and logged as one.
// The receiver still keeps what it verified, and stores it once the table is there.
const api = useApi();
const missing = `missing_${randomBytes(6).toString('hex')}`;
beforeAll(() => {
  // The shared setup made this file's table; the service is sent to another name, read at its first request.
  process.env.TABLE_NAME = missing;
});

const reaction = (op: string) => `/api/db/reaction/${op}`;
const SAYS = `The service is misconfigured: the table ${missing} does not exist (or is not active yet); the cause is in this function's log`;

test.each([
  ['health', () => api.get('/api/db/health')],
  ['count', () => api.post(reaction('count'), {})],
  ['list', () => api.post(reaction('list'), {})],
  ['get_one', () => api.post(reaction('get_one'), { filters: { id: 'x' } })],
  ['create', () => api.post(reaction('create'), { data: { user_id: 1, content: 'c' } })],
  ['update', () => api.post(reaction('update'), { filters: { id: 'x' }, values: { content: 'u' } })],
  ['delete', () => api.post(reaction('delete'), { filters: { id: 'x' } })],
])('%s answers 500 misconfigured, without Retry-After or SDK text, and logs the cause', async (_route, call) => {
  const log = spyOnLog('error');
  const r = await call();
  expect(r.status).toBe(500);
  expect(r.headers.get('retry-after')).toBeNull();
  expect(r.body).toEqual({ status: 'error', message: SAYS, data: { error: 'misconfigured', problem: 'table_missing' } });
  expect(r.text).not.toMatch(/ResourceNotFound|Exception|non-existent|Requested resource/);
  const lines = log.mock.calls.map(([line]) => JSON.parse(String(line)));
  expect(lines).toContainEqual(expect.objectContaining({ level: 'error', code: 'misconfigured', name: 'ResourceNotFoundException' }));
  log.mockRestore();
});

test('the receiver keeps each verified delivery (200), logs the misconfiguration, and stores each once the table exists', async () => {
  const log = spyOnLog('error');
  const napcat = napCat({ selfId: 20701 });
  const url = `${api.url}/onebot/v11/`;
  const poke = (i: number): Json => groupPoke(30701, 42000 + i, 20701);
  const outcomes = [];
  for (let i = 0; i < 5; i++) outcomes.push(await napcat.post(url, poke(i)));
  expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);
  expect(await spooled()).toHaveLength(5);
  const kept = log.mock.calls.map(([line]) => JSON.parse(String(line))).filter((line) => line.kept === true);
  expect(kept).toHaveLength(5);
  expect(kept[0]).toMatchObject({ level: 'error', code: 'misconfigured', problem: 'table_missing', where: 'spool', name: 'ResourceNotFoundException' });
  log.mockRestore();

  // The operator's fix: the table is made. The spool drains into it with nobody acting.
  await prepareTable(process.env.DYNAMODB_ENDPOINT!, missing);
  await spoolDrained();
  const stored = await storedEvents(api, { self_id: 20701 });
  expect(stored.map((e) => Number(e.user_id)).sort()).toEqual([42000, 42001, 42002, 42003, 42004]);
}, 90_000);
