import { localOnly, useApi } from '../support/api';
import { spyOnLog } from '../support/log';

// The request log through the local server: one `request` line per request at LOG_LEVEL=info,
// each under the request id the gateway answered with. The functions run in this process here
// (the artifact harness runs them in sandboxes, whose console this test cannot spy on).
const TOKEN = 'tok-integration-log-91c2';
process.env.API_TOKENS = JSON.stringify({ [TOKEN]: ['read', 'write'] });

const api = useApi();
const auth = { authorization: `Bearer ${TOKEN}` };
const reaction = (op: string) => `/api/db/reaction/${op}`;

localOnly('150 requests at LOG_LEVEL=info are 150 request lines', async () => {
  const info = spyOnLog('info');
  const answered: { id: string | null; status: number }[] = [];
  let calls: unknown[][] = [];
  try {
    for (let i = 0; i < 50; i++) {
      for (const [path, body] of [
        [reaction('create'), { data: { user_id: i, content: `log-${i}` } }],
        [reaction('count'), { filters: { content: `log-${i}` } }],
        [reaction('get_one'), { filters: { id: `missing-${i}` } }],
      ] as const) {
        const r = await api.post(path, body, auth);
        answered.push({ id: r.headers.get('apigw-requestid'), status: r.status });
      }
    }
  } finally {
    // Restoring the spy clears what it saw.
    calls = [...info.mock.calls];
    info.mockRestore();
  }
  const lines = calls.map(([line]) => JSON.parse(line as string)).filter((line) => line.code === 'request');
  expect(lines).toHaveLength(150);
  expect(lines.map((l) => ({ id: l.request_id, status: l.status }))).toEqual(answered);
  expect(new Set(answered.map((a) => a.status))).toEqual(new Set([201, 200, 404]));
  for (const line of lines) expect(line).toMatchObject({ level: 'info', method: 'POST', model: 'reaction', via: 'token', scopes: ['read', 'write'] });
  expect(JSON.stringify(calls)).not.toContain(TOKEN);
  expect(JSON.stringify(calls)).not.toContain('log-7"');
});

localOnly('every line a request writes carries its request id, not only the request line (LOG_LEVEL=debug: its request_detail line too)', async () => {
  const debug = spyOnLog('debug');
  const info = jest.spyOn(console, 'info').mockImplementation(() => undefined);
  const ids: (string | null)[] = [];
  let lines: Array<{ code: string; request_id?: string }> = [];
  try {
    for (let i = 0; i < 5; i++) {
      const r = await api.post(reaction('count'), { filters: { content: `log-id-${i}` } }, auth);
      expect(r.status).toBe(200);
      ids.push(r.headers.get('apigw-requestid'));
    }
  } finally {
    lines = [...info.mock.calls, ...debug.mock.calls].map(([line]) => JSON.parse(line as string));
    info.mockRestore();
    debug.mockRestore();
  }
  const ofRequests = lines.filter((line) => line.code === 'request' || line.code === 'request_detail');
  expect(ofRequests).toHaveLength(10);
  for (const id of ids)
    expect(
      ofRequests
        .filter((line) => line.request_id === id)
        .map((line) => line.code)
        .sort(),
    ).toEqual(['request', 'request_detail']);
});

localOnly("a transaction's line names the models its operations act on", async () => {
  const info = spyOnLog('info');
  let calls: unknown[][] = [];
  try {
    const operations = [
      { op: 'create', model: 'reaction', data: { user_id: 1, content: 'log-tx' } },
      { op: 'check', model: 'onebot_bot', id: 'none', filters: {} },
    ];
    expect((await api.post('/api/db/transaction', { operations }, auth)).status).toBe(409);
  } finally {
    calls = [...info.mock.calls];
    info.mockRestore();
  }
  const lines = calls.map(([line]) => JSON.parse(line as string)).filter((line) => line.code === 'request');
  expect(lines).toEqual([expect.objectContaining({ route: 'POST /api/db/transaction', models: ['reaction', 'onebot_bot'], status: 409, error: 'conflict' })]);
});
