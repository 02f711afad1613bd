import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { localOnly, useApi } from '../support/api';
import { bodyOf, deliver, detailOf, EVENT_ROUTE, EVENTS, idOf, ROUTES, SELF_ID, sign, storedEvents } from './onebot-fixtures';

// Non-ASCII on purpose: the HMAC key is the secret's UTF-8 bytes, as go-cqhttp and NoneBot use it.
const SECRET = 'clé-秘密-🔑';
process.env.ONEBOT_SECRET = SECRET;

const api = useApi();
const signed = (path: string, body: string, selfId = String(SELF_ID)) => deliver(api, path, body, { selfId, signature: sign(SECRET, body) });

// The four receiver paths share one function: each is shown to reach it once, and the event
// matrix runs on one of them.
describe('with a secret, every route reaches the receiver', () => {
  test.each(ROUTES.map((route, r) => ({ route, r })))('a signed message on $route: 200 {} and stored', async ({ route, r }) => {
    const event = { ...EVENTS['message private string'], message_id: 900_000 + r };
    const body = bodyOf(event, 1_700_100_000 + r);
    const reply = await signed(route, body);
    expect([reply.status, reply.text]).toEqual([200, '{}']);
    expect(await storedEvents(api, { id: idOf(body) })).toEqual([expect.objectContaining({ post_type: 'message', message_id: event.message_id })]);
  });
});

describe(`with a secret, every event type (on ${EVENT_ROUTE})`, () => {
  const cases = Object.entries(EVENTS).map(([name, event], i) => ({ name, event, time: 1_700_000_000 + i * 10 }));

  test.each(cases)('$name: 200 {} and stored', async ({ event, time }) => {
    const body = bodyOf(event, time);
    const r = await signed(EVENT_ROUTE, body);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{}');
    const [stored] = await storedEvents(api, { id: idOf(body) });
    expect(stored).toMatchObject({
      self_id: SELF_ID,
      post_type: event.post_type,
      detail_type: detailOf(event),
      time,
      event: JSON.parse(body),
    });
    for (const field of ['sub_type', 'user_id', 'group_id', 'message_id'] as const) expect(stored[field]).toEqual(event[field]);
  });

  test('the stored events are found by their type filters', async () => {
    expect(await storedEvents(api, { post_type: 'notice', detail_type: 'notify', sub_type: 'poke' })).toHaveLength(1);
    expect(await storedEvents(api, { post_type: 'message', detail_type: 'group', group_id: 30003 })).toHaveLength(2);
    expect(await storedEvents(api, { post_type: 'message_sent' })).toHaveLength(1);
  });
});

describe('the signed bytes, as text or base64 in the event', () => {
  // application/json reaches the function as UTF-8 text, application/octet-stream base64-encoded:
  // the signature is checked over the same bytes either way.
  test.each(['application/json', 'application/octet-stream'])('a signed event with non-ASCII text sent as %s is stored once', async (type) => {
    const time = type === 'application/json' ? 1_720_000_000 : 1_720_000_001;
    const body = bodyOf({ ...EVENTS['notice friend_add'], comment: 'é 秘密 🔑 \u00e9' }, time);
    const r = await api.post('/onebot/v11/', body, { 'content-type': type, 'x-self-id': String(SELF_ID), 'x-signature': sign(SECRET, body) });
    expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: '{}' });
    const stored = await storedEvents(api, { id: idOf(body) });
    expect(stored).toHaveLength(1);
    expect(stored[0].event).toEqual(JSON.parse(body));
  });
});

describe('signature check', () => {
  const body = bodyOf(EVENTS['notice friend_add'], 1_710_000_000);

  test('upper-case hex (Lagrange.OneBot) is accepted', async () => {
    const other = bodyOf(EVENTS['notice friend_add'], 1_710_000_001);
    expect((await deliver(api, '/', other, { signature: `sha1=${sign(SECRET, other).slice(5).toUpperCase()}` })).status).toBe(200);
  });

  // Issue 30, finding 7: NoneBot compares the prefix exactly and every sender writes `sha1=`.
  test.each(['SHA1=', 'Sha1='])('the right HMAC of these very bytes behind a %s prefix: 403 forbidden, nothing stored', async (prefix) => {
    const other = bodyOf(EVENTS['notice friend_add'], 1_710_000_002);
    const r = await deliver(api, '/onebot/v11/', other, { signature: sign(SECRET, other).replace('sha1=', prefix) });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ status: 'error', data: { error: 'forbidden' } });
    expect(await storedEvents(api, { time: 1_710_000_002 })).toHaveLength(0);
  });

  test.each([
    ['X-Self-ID missing, before the signature is looked at', { selfId: null, signature: 'sha1=00' }, 400, 'invalid_request'],
    ['X-Self-ID empty', { selfId: '', signature: sign(SECRET, body) }, 400, 'invalid_request'],
    ['X-Signature missing', {}, 401, 'unauthorized'],
    ['X-Signature empty', { signature: '' }, 401, 'unauthorized'],
    ['X-Signature of other bytes', { signature: sign(SECRET, `${body} `) }, 403, 'forbidden'],
    ['X-Signature with another secret', { signature: sign('clé-秘密', body) }, 403, 'forbidden'],
    [
      "X-Signature made with the secret's Latin-1 bytes",
      { signature: `sha1=${require('node:crypto').createHmac('sha1', Buffer.from(SECRET, 'latin1')).update(body).digest('hex')}` },
      403,
      'forbidden',
    ],
    ['X-Signature without sha1=', { signature: sign(SECRET, body).slice(5) }, 403, 'forbidden'],
    ['X-Signature of another algorithm', { signature: sign(SECRET, body).replace('sha1=', 'sha256=') }, 403, 'forbidden'],
    ['X-Signature truncated', { signature: sign(SECRET, body).slice(0, -2) }, 403, 'forbidden'],
  ] as const)('%s (%j): %i %s, nothing stored', async (_name, delivery, status, code) => {
    const r = await deliver(api, '/onebot/v11/', `${body}\n`, delivery as { selfId?: string | null; signature?: string });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ status: 'error', data: { error: code } });
    expect(await storedEvents(api, { time: 1_710_000_000 })).toHaveLength(0);
  });

  test.each([
    ['an empty body', '', 'invalid_request'],
    ['whitespace', ' \n', 'invalid_request'],
    ['malformed JSON', '{"post_type": "notice",', 'malformed_json'],
    ['a JSON array', '[{"post_type": "notice"}]', 'invalid_request'],
    ['a JSON string', '"notice"', 'invalid_request'],
    ['null', 'null', 'invalid_request'],
    ['an object without post_type', '{"time": 1, "self_id": 10001}', 'invalid_request'],
    ['a post_type that is not a string', '{"time": 1, "self_id": 10001, "post_type": 7}', 'invalid_request'],
  ])('a correctly signed %s (%j) is 400 %s', async (_name, text, code) => {
    const r = await signed('/onebot/v11/http', text);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'error', data: { error: code } });
  });
});

describe('exact bytes and exact numbers', () => {
  test('.NET \\uXXXX escapes: the signature is over the bytes sent, the text is stored decoded', async () => {
    const body =
      '{"time":1720000000,"self_id":10001,"post_type":"message","message_type":"private","sub_type":"friend","message_id":21,"user_id":20002,"message":"\\u4F60\\u597D \\u0026amp; \\uD83D\\uDE00","raw_message":"\\u4F60\\u597D","font":0}';
    expect((await signed('/onebot/v11/', body)).status).toBe(200);
    const [stored] = await storedEvents(api, { id: idOf(body) });
    expect(stored.event.message).toBe('你好 &amp; 😀');
  });

  test("Go's \\u003c escaping is kept for the signature and decoded in the record", async () => {
    const body =
      '{"post_type":"message","message_type":"group","sub_type":"normal","time":1720000001,"self_id":10001,"group_id":30003,"user_id":20002,"message_id":22,"message":"\\u003cb\\u003e \\u0026 \\u003e","raw_message":"\\u003cb\\u003e","font":0,"anonymous":null}';
    expect((await signed('/', body)).status).toBe(200);
    const [stored] = await storedEvents(api, { id: idOf(body) });
    expect(stored.event.message).toBe('<b> & >');
  });

  test('pretty-printed JSON with CRLF line ends is verified over its exact bytes', async () => {
    const body = JSON.stringify({ time: 1720000002, self_id: SELF_ID, post_type: 'notice', notice_type: 'friend_add', user_id: 20002 }, null, '\t').replace(
      /\n/g,
      '\r\n',
    );
    expect((await signed('/onebot/v11/http/', body)).status).toBe(200);
    expect(await storedEvents(api, { id: idOf(body) })).toHaveLength(1);
    // Re-serialising the parsed JSON (the bug of several receivers) gives another signature.
    expect((await deliver(api, '/onebot/v11/http/', body, { signature: sign(SECRET, JSON.stringify(JSON.parse(body))) })).status).toBe(403);
  });

  test('ids beyond 2^53, negative int32 ids and string ids are stored and returned exactly', async () => {
    const body =
      '{"time":1720000003,"self_id":1482675043933618437,"post_type":"message","message_type":"group","sub_type":"normal","message_id":1482675043933618437,"group_id":"123456789012345678901","user_id":-2147483648,"message":"big","raw_message":"big","font":0,"anonymous":null,"real_seq":"9007199254740993"}';
    expect((await signed('/', body, '1482675043933618437')).status).toBe(200);
    const found = await storedEvents(api, { message_id: NumberValue.from('1482675043933618437') });
    expect(found).toHaveLength(1);
    const [stored] = found;
    expect(String(stored.self_id)).toBe('1482675043933618437');
    expect(String(stored.message_id)).toBe('1482675043933618437');
    expect(stored.group_id).toBe('123456789012345678901');
    expect(stored.user_id).toBe(-2147483648);
    expect(String(stored.event.message_id)).toBe('1482675043933618437');
    expect(stored.event.real_seq).toBe('9007199254740993');
    const raw = await api.post('/api/db/onebot_event/get_one', { filters: { id: idOf(body) } });
    expect(raw.text).toContain('"message_id":1482675043933618437');
    expect(raw.text).toContain('"self_id":1482675043933618437');
  });
});

describe('duplicate deliveries', () => {
  // Identical notices at once can be two events (onebot-identity.test.ts); this one's time is
  // past the 5 minutes a signed event may be old, so every later copy is a replay.
  test('the same old signed bytes on all four routes, one after another and at once: stored once, 200 {} each time', async () => {
    const body = bodyOf(EVENTS['notice group_increase'], 1_730_000_000);
    for (const route of ROUTES) expect((await signed(route, body)).status).toBe(200);
    const burst = await Promise.all(ROUTES.map((route) => signed(route, body)));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const count = await api.post('/api/db/onebot_event/count', { filters: { time: 1_730_000_000 } });
    expect(count.body.data.count).toBe(1);
  });
});

describe('bot allow-list (ONEBOT_SELF_IDS)', () => {
  afterEach(() => {
    delete process.env.ONEBOT_SELF_IDS;
  });

  localOnly('a bot not in the list is 403; a listed one is accepted; the body cannot name another bot', async () => {
    process.env.ONEBOT_SELF_IDS = ' 10001 , 10005';
    const body = bodyOf(EVENTS['notice friend_add'], 1_740_000_000, 10002);
    const r = await signed('/', body, '10002');
    expect(r.status).toBe(403);
    expect(r.body.data.error).toBe('forbidden');
    expect((await signed('/', body, '10001')).status).toBe(403);
    expect((await signed('/', bodyOf(EVENTS['notice friend_add'], 1_740_000_000, 10005), '10005')).status).toBe(200);
    expect(await storedEvents(api, { time: 1_740_000_000 })).toHaveLength(1);
  });
});

describe('bot status', () => {
  const BOT = 10009;
  const meta = (event: Record<string, unknown>, time: number) => signed('/onebot/v11/', bodyOf(event, time, BOT), String(BOT));
  const botInHealth = async () => {
    const r = await api.get('/api/db/health');
    expect(r.status).toBe(200);
    return (r.body.data.bots as Record<string, unknown>[]).find((b) => b.self_id === BOT);
  };

  test('lifecycle creates the bot, heartbeats update it, health lists it with overdue', async () => {
    expect(await botInHealth()).toBeUndefined();
    expect((await meta(EVENTS['meta_event lifecycle'], 1_750_000_000)).status).toBe(200);
    expect(await botInHealth()).toEqual({ self_id: BOT, online: true, good: null, last_heartbeat: null, interval_ms: null, overdue: false });

    expect((await meta({ ...EVENTS['meta_event heartbeat'], status: { online: true, good: false } }, 1_750_000_001)).status).toBe(200);
    const bot = await botInHealth();
    expect(bot).toMatchObject({ self_id: BOT, online: true, good: false, interval_ms: 5000, overdue: false });
    expect(Date.parse(bot!.last_heartbeat as string)).not.toBeNaN();

    // An interval of 1 ms is overdue once 3 ms have passed.
    expect((await meta({ ...EVENTS['meta_event heartbeat'], interval: 1 }, 1_750_000_002)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await botInHealth()).toMatchObject({ interval_ms: 1, overdue: true });

    // A bot that said goodbye is offline, not overdue.
    expect((await meta({ ...EVENTS['meta_event lifecycle'], sub_type: 'disable' }, 1_750_000_003)).status).toBe(200);
    expect(await botInHealth()).toMatchObject({ online: false, overdue: false });

    const record = await api.post('/api/db/onebot_bot/get_one', { filters: { id: String(BOT) } });
    expect(record.body.data).toMatchObject({ self_id: BOT, lifecycle: 'disable', status: { online: true, good: true }, _version: 4 });
  });

  test('concurrent first heartbeats of a new bot make one record', async () => {
    const bot = 10010;
    const beats = [0, 1, 2, 3].map((i) => bodyOf(EVENTS['meta_event heartbeat'], 1_760_000_000 + i, bot));
    const answers = await Promise.all(beats.map((body) => signed('/', body, String(bot))));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const bots = await api.post('/api/db/onebot_bot/list', { filters: { self_id: bot } });
    expect(bots.body.data.items).toHaveLength(1);
    expect(bots.body.data.items[0]._version).toBe(4);
  });

  test('the service writes bots and events; the record API cannot', async () => {
    const r = await api.post('/api/db/onebot_bot/create', { data: { self_id: 1, last_event_at: new Date().toISOString() } });
    expect(r.status).toBe(403);
    expect((await api.post('/api/db/onebot_event/delete', { filters: {}, allow_all: true })).status).toBe(403);
  });
});
