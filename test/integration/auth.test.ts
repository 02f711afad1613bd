import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler as listHandler } from '../../functions/list/handler';
import { localOnly, useApi } from '../support/api';
import { tableSnapshot } from '../support/table-snapshot';
import { bodyOf, deliver, EVENTS } from './onebot-fixtures';

const TOKENS = { reader: ['read'], writer: ['read', 'write'], scribe: ['write'], root: ['read', 'write', 'admin'] };
process.env.API_TOKENS = JSON.stringify(TOKENS);

const api = useApi();
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const reaction = (op: string) => `/api/db/reaction/${op}`;

beforeAll(async () => {
  const r = await api.post(
    reaction('create'),
    {
      data: [
        { user_id: 1, content: '+1' },
        { user_id: 2, content: 'eyes' },
      ],
      ids: ['a', 'b'],
    },
    as('root'),
  );
  expect(r.status).toBe(201);
});

describe('without a valid token', () => {
  test('health stays public', async () => {
    const r = await api.get('/api/db/health');
    expect(r.status).toBe(200);
  });

  test.each([
    ['GET', '/api/db/models'],
    ['POST', reaction('get_one')],
    ['POST', reaction('list')],
    ['POST', reaction('count')],
    ['POST', reaction('create')],
    ['POST', reaction('update')],
    ['POST', reaction('delete')],
  ])('%s %s without a token is 401 with a Bearer challenge', async (method, path) => {
    const r = await api.request(method, path, method === 'POST' ? { filters: {} } : undefined);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.body).toMatchObject({ status: 'error', data: { error: 'unauthorized' } });
  });

  test('an unknown token is 401 invalid_token', async () => {
    const r = await api.post(reaction('list'), {}, as('readerx'));
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(r.body.data.error).toBe('unauthorized');
  });

  test('another scheme counts as no token', async () => {
    const r = await api.post(reaction('list'), {}, { authorization: `Basic ${Buffer.from('root:').toString('base64')}` });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('the token is checked before the body is read', async () => {
    expect((await api.post(reaction('create'), '{not json')).status).toBe(401);
    expect((await api.post(reaction('create'), Buffer.alloc(2_000_000, 0x20))).status).toBe(401);
  });

  test('a refused write stores nothing', async () => {
    const before = await tableSnapshot();
    await api.post(reaction('create'), { data: { user_id: 3, content: 'x' } });
    await api.post(reaction('delete'), { filters: {}, allow_all: true }, as('nope'));
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('scopes', () => {
  test('read reaches models, get_one, list and count', async () => {
    expect((await api.get('/api/db/models', as('reader'))).status).toBe(200);
    expect((await api.post(reaction('get_one'), { filters: { id: 'a' } }, as('reader'))).body.data.content).toBe('+1');
    expect((await api.post(reaction('list'), {}, as('reader'))).body.data.items).toHaveLength(2);
    expect((await api.post(reaction('count'), {}, as('reader'))).body.data.count).toBe(2);
  });

  test('read cannot create or update: 403 forbidden naming the scope, nothing stored', async () => {
    const before = await tableSnapshot();
    const create = await api.post(reaction('create'), { data: { user_id: 4, content: 'no' } }, as('reader'));
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ status: 'error', data: { error: 'forbidden', required_scope: 'write' } });
    expect(create.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="write"');
    const update = await api.post(reaction('update'), { filters: { id: 'a' }, values: { content: 'no' } }, as('reader'));
    expect(update.status).toBe(403);
    expect(await tableSnapshot()).toEqual(before);
  });

  test('write creates and updates by filter', async () => {
    const create = await api.post(reaction('create'), { id: 'w', data: { user_id: 5, content: 'rocket' } }, as('writer'));
    expect(create.status).toBe(201);
    const update = await api.post(reaction('update'), { filters: { id: 'w' }, values: { content: 'heart' } }, as('writer'));
    expect(update.body.data).toEqual({ updated: 1, matched: 1, skipped: 0, complete: true, next_cursor: null });
  });

  test('write cannot delete on a model without an owner rule, nor update with allow_all: both need admin', async () => {
    const before = await tableSnapshot();
    for (const token of ['writer', 'reader']) {
      const del = await api.post(reaction('delete'), { filters: { id: 'w' } }, as(token));
      expect(del.status).toBe(403);
      expect(del.body.data).toMatchObject({ error: 'forbidden', required_scope: 'admin' });
      expect(del.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="admin"');
    }
    // Refused before the body is read, as before delete's scope depended on the model.
    expect((await api.post(reaction('delete'), '{not json', as('writer'))).status).toBe(403);
    const all = await api.post(reaction('update'), { filters: {}, values: { content: 'all' }, allow_all: true }, as('writer'));
    expect(all.status).toBe(403);
    expect(all.body.data).toMatchObject({ error: 'forbidden', required_scope: 'admin' });
    expect(await tableSnapshot()).toEqual(before);
  });

  test("a transaction's operations take their own routes' scopes: write, admin for a delete, read for a check; refused before anything is sent", async () => {
    const before = await tableSnapshot();
    const create = { op: 'create', model: 'reaction', data: { user_id: 9, content: 'tx' } };
    const cases: Array<[string, unknown[], string]> = [
      ['reader', [create], 'write'],
      ['writer', [create, { op: 'delete', model: 'reaction', id: 'a' }], 'admin'],
      ['scribe', [create, { op: 'check', model: 'reaction', id: 'a', filters: {} }], 'read'],
    ];
    for (const [token, operations, scope] of cases) {
      const r = await api.post('/api/db/transaction', { operations }, as(token));
      expect([r.status, r.body.data.error, r.body.data.required_scope]).toEqual([403, 'forbidden', scope]);
    }
    expect(await tableSnapshot()).toEqual(before);
    const allowed = await api.post('/api/db/transaction', { operations: [create, { op: 'check', model: 'reaction', id: 'a', filters: {} }] }, as('writer'));
    expect(allowed.status).toBe(200);
    await api.post('/api/db/transaction', { operations: [{ op: 'delete', model: 'reaction', id: allowed.body.data.results[0].record.id }] }, as('root'));
  });

  test('admin updates with allow_all and deletes', async () => {
    const all = await api.post(reaction('update'), { filters: {}, values: { user_name: 'everyone' }, allow_all: true }, as('root'));
    expect(all.body.data).toEqual({ updated: 3, matched: 3, skipped: 0, complete: true, next_cursor: null });
    const del = await api.post(reaction('delete'), { filters: { id: 'w' } }, as('root'));
    expect(del.body.data).toEqual({ deleted: 1, matched: 1, skipped: 0, complete: true, next_cursor: null });
    expect((await api.post(reaction('count'), {}, as('root'))).body.data.count).toBe(2);
  });
});

describe('health shows the OneBot bots to a read caller only', () => {
  // A bot's id is its account number: a public monitor learns whether the table answers, not who uses it.
  const BOT = 10_077;
  const botsIn = async (headers: Record<string, string> = {}) => {
    const r = await api.get('/api/db/health', headers);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ database: 'ok', table: expect.any(String) });
    return r.body.data.bots as { self_id: number }[] | undefined;
  };

  beforeAll(async () => {
    const lifecycle = bodyOf(EVENTS['meta_event lifecycle'], 1_760_000_000, BOT);
    expect((await deliver(api, '/onebot/v11/', lifecycle, { selfId: String(BOT) })).status).toBe(200);
  });

  test('a read token gets each bot and its heartbeat state', async () => {
    expect((await botsIn(as('reader')))?.map((b) => b.self_id)).toContain(BOT);
  });

  test.each([
    ['no token', {}],
    ['an unknown token', as('readerx')],
    ['another scheme', { authorization: `Basic ${Buffer.from('reader:').toString('base64')}` }],
  ])('%s gets the database state without any bot', async (_, headers) => {
    expect(await botsIn(headers)).toBeUndefined();
  });
});

describe('open mode: no token configured', () => {
  beforeAll(() => {
    delete process.env.API_TOKENS;
  });
  afterAll(() => {
    process.env.API_TOKENS = JSON.stringify(TOKENS);
  });

  const event = (sourceIp: string) =>
    ({
      version: '2.0',
      routeKey: 'POST /api/db/{model_name}/list',
      rawPath: '/api/db/reaction/list',
      rawQueryString: '',
      headers: {},
      pathParameters: { model_name: 'reaction' },
      requestContext: { http: { method: 'POST', path: '/api/db/reaction/list', sourceIp } },
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;

  localOnly('the local server serves loopback clients without a token', async () => {
    const r = await api.post(reaction('count'), {});
    expect(r.status).toBe(200);
    expect(r.body.data.count).toBe(2);
  });

  test('a client from another address is 401', async () => {
    const r = await listHandler(event('192.0.2.10'), {} as Context);
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer');
  });

  test('in Lambda even a loopback address is 401: a deployed stack never runs open', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'recordgate-list';
    try {
      const r = await listHandler(event('127.0.0.1'), {} as Context);
      expect(r.statusCode).toBe(401);
      expect(JSON.parse(r.body!).data.error).toBe('unauthorized');
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});
