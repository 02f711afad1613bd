import { useApi } from '../support/api';
import { bodyOf, deliver, EVENT_ROUTE, EVENTS, idOf, ROUTES, sign, storedEvents } from './onebot-fixtures';

// No secret: signatures are not checked (one sent anyway is ignored).
delete process.env.ONEBOT_SECRET;

const api = useApi();
let clock = 1_800_000_000;
/** Posts the event (a fresh `time`, and a fresh flag for a request, so each delivery is new) to a route. */
const post = (event: Record<string, unknown>, route: string = ROUTES[0]) =>
  deliver(api, route, bodyOf(typeof event.flag === 'string' ? { ...event, flag: `${event.flag}-${clock}` } : event, clock++));

// Above the fixtures' message ids, which the file's other tests store.
let nextMessageId = 1_000_000;
/** A new message each time: a message is one event per message_id. */
const message = (message_type: 'private' | 'group', message: unknown, extra: Record<string, unknown> = {}) => ({
  ...(message_type === 'group' ? EVENTS['message group string'] : EVENTS['message private string']),
  message_id: nextMessageId++,
  message,
  raw_message: typeof message === 'string' ? message : '',
  ...extra,
});

async function createRule(data: Record<string, unknown>): Promise<string> {
  const r = await api.post('/api/db/onebot_rule/create', { data });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

// The four receiver paths share one function: each is shown to reach it once, and the event
// matrix runs on one of them.
describe('without a secret, every route and every event type', () => {
  test.each(ROUTES)('an event on %s: 200 {} and stored', async (route) => {
    const body = bodyOf(message('private', `on ${route}`), clock++);
    expect((await deliver(api, route, body)).status).toBe(200);
    expect(await storedEvents(api, { id: idOf(body) })).toHaveLength(1);
  });

  test.each(Object.entries(EVENTS))(`%s on ${EVENT_ROUTE}: 200 {} and stored`, async (_name, event) => {
    const body = bodyOf(event, clock++);
    expect((await deliver(api, EVENT_ROUTE, body)).status).toBe(200);
    expect(await storedEvents(api, { id: idOf(body) })).toHaveLength(1);
  });

  test('a signature sent anyway is ignored, even a wrong one', async () => {
    const body = bodyOf(EVENTS['notice friend_add'], clock++);
    expect((await deliver(api, '/onebot/v11/', body, { signature: sign('whatever', 'other bytes') })).status).toBe(200);
  });

  test.each([
    ['no X-Self-ID', '{"post_type":"notice"}', null, 'invalid_request'],
    ['an empty body', '', '10001', 'invalid_request'],
    ['malformed JSON', '{post_type: notice}', '10001', 'malformed_json'],
    ['a JSON number', '42', '10001', 'invalid_request'],
    ['an object without post_type', '{}', '10001', 'invalid_request'],
  ])('%s is 400 %s', async (_name, body, selfId, code) => {
    const r = await deliver(api, '/onebot/v11/http', body, { selfId });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'error', data: { error: code } });
  });

  test('an event without self_id is filed under X-Self-ID', async () => {
    const body = JSON.stringify({ time: clock++, post_type: 'notice', notice_type: 'friend_add', user_id: 5 });
    expect((await deliver(api, '/', body, { selfId: '10003' })).status).toBe(200);
    const [stored] = await storedEvents(api, { id: idOf(body, '10003') });
    expect(stored.self_id).toBe(10003);
  });
});

describe('rules', () => {
  test('rules are validated: 422 with the field at fault, nothing stored', async () => {
    const invalid: [Record<string, unknown>, string][] = [
      [{ match: 'exact', pattern: 'hi' }, 'data.reply'],
      [{ pattern: 'hi', reply: 'x' }, 'data.match'],
      [{ match: 'regex', pattern: '(a)\\1', reply: 'x' }, 'data.pattern'],
      [{ match: 'regex', pattern: '(?=a)a', reply: 'x' }, 'data.pattern'],
      [{ match: 'regex', pattern: 'a'.repeat(201), reply: 'x' }, 'data.pattern'],
      [{ match: 'regex', pattern: '(', reply: 'x' }, 'data.pattern'],
      [{ match: 'keyword', pattern: 'x'.repeat(501), reply: 'x' }, 'data.pattern'],
      [{ match: 'exact', pattern: 'hi', reply: 'x', approve: true }, 'data.approve'],
      [{ request_type: 'friend' }, 'data.approve'],
      [{ request_type: 'friend', approve: true, reply: 'x' }, 'data.reply'],
      [{ request_type: 'group', approve: true, remark: 'x' }, 'data.remark'],
      [{ match: 'nope', pattern: 'hi', reply: 'x' }, 'data.match'],
    ];
    for (const [data, path] of invalid) {
      const r = await api.post('/api/db/onebot_rule/create', { data });
      expect({ data, status: r.status, paths: r.body.data.details?.map((d: { path: string }) => d.path) }).toEqual({
        data,
        status: 422,
        paths: expect.arrayContaining([path]),
      });
    }
    expect((await api.post('/api/db/onebot_rule/count', {})).body.data.count).toBe(0);
  });

  test('a rule gets its defaults', async () => {
    const id = await createRule({ match: 'exact', pattern: 'never sent', reply: 'x' });
    const r = await api.post('/api/db/onebot_rule/get_one', { filters: { id } });
    expect(r.body.data).toMatchObject({ auto_escape: false, at_sender: false, enabled: true, priority: 0 });
    await api.post('/api/db/onebot_rule/delete', { filters: { id } });
  });

  describe('message rules', () => {
    beforeAll(async () => {
      await createRule({ match: 'exact', pattern: 'ping', reply: 'pong' });
      await createRule({ match: 'exact', pattern: 'ping', reply: 'PONG (disabled)', priority: 100, enabled: false });
      await createRule({ match: 'prefix', pattern: '/echo', reply: '[CQ:face,id=178] &#91;ok&#93;' });
      await createRule({ match: 'keyword', pattern: '[help]', reply: [{ type: 'text', data: { text: 'see [docs] & more' } }], auto_escape: false });
      await createRule({ match: 'keyword', pattern: 'weather', reply: 'sunny', priority: 1 });
      await createRule({ match: 'keyword', pattern: 'weather', reply: 'rain in group 30004', priority: 5, group_id: 30004 });
      await createRule({ match: 'regex', pattern: '^\\d+\\+\\d+$', reply: 'maths', message_type: 'private' });
      await createRule({ match: 'regex', pattern: '(a|a)*b', reply: 'found b' });
      await createRule({ match: 'exact', pattern: 'vip', reply: 'hello boss', user_id: 20002, at_sender: true, auto_escape: true });
    });

    test.each(ROUTES)('a private exact match on %s: 200 with reply and auto_escape, no at_sender', async (route) => {
      const r = await post(message('private', 'ping'), route);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body).toEqual({ reply: 'pong', auto_escape: false });
    });

    test('a group reply always says at_sender', async () => {
      expect((await post(message('group', 'ping'))).body).toEqual({ reply: 'pong', auto_escape: false, at_sender: false });
      // A mention is an at segment in the reply itself, never left to the sender's at_sender.
      expect((await post(message('group', 'vip'))).body).toEqual({
        reply: [
          { type: 'at', data: { qq: '20002' } },
          { type: 'text', data: { text: ' ' } },
          { type: 'text', data: { text: 'hello boss' } },
        ],
        auto_escape: false,
        at_sender: false,
      });
    });

    test('the array format matches on its joined text segments', async () => {
      const r = await post(
        message('group', [
          { type: 'at', data: { qq: '10001' } },
          { type: 'text', data: { text: 'pi' } },
          { type: 'text', data: { text: 'ng' } },
        ]),
      );
      expect(r.body).toEqual({ reply: 'pong', auto_escape: false, at_sender: false });
    });

    test('CQ text is unescaped and CQ codes dropped before matching; a CQ reply is sent as written', async () => {
      // The user typed "[help] please": in CQ text the brackets arrive escaped.
      expect((await post(message('private', '[CQ:reply,id=5]&#91;help&#93; please'))).body).toEqual({
        reply: [{ type: 'text', data: { text: 'see [docs] & more' } }],
        auto_escape: false,
      });
      // A literal "[help]" can only be CQ-escaped; an unescaped one would be a (broken) CQ code, not text.
      expect((await post(message('private', '[CQ:face,id=1]/echo hi'))).body).toEqual({ reply: '[CQ:face,id=178] &#91;ok&#93;', auto_escape: false });
      expect((await post(message('private', '&#91;/echo&#93;'))).status).toBe(200);
      expect((await post(message('private', 'ping &amp;'))).status).toBe(200);
    });

    test('priority: the highest matching enabled rule wins; scopes narrow a rule', async () => {
      expect((await post(message('group', 'the weather?'))).body.reply).toBe('sunny');
      expect((await post(message('group', 'the weather?', { group_id: 30004 }))).body.reply).toBe('rain in group 30004');
      expect((await post(message('private', 'vip', { user_id: 20003 }))).status).toBe(200);
    });

    test('regex rules: message_type scope, and a pattern that backtracks exponentially elsewhere answers at once', async () => {
      expect((await post(message('private', '12+30'))).body.reply).toBe('maths');
      expect((await post(message('group', '12+30'))).status).toBe(200);
      expect((await post(message('private', 'a'.repeat(5000)))).status).toBe(200);
      expect((await post(message('private', `${'a'.repeat(30)}b`))).body.reply).toBe('found b');
    });

    test("no reply to the bot's own messages (message_sent), nor to other post types", async () => {
      expect((await post({ ...EVENTS['message_sent (NapCat)'], message: 'ping', raw_message: 'ping' })).status).toBe(200);
      expect((await post({ ...EVENTS['notice friend_add'], message: 'ping' })).status).toBe(200);
    });

    test('the answer is stored with the event, with the rule that made it', async () => {
      const body = bodyOf(message('private', 'ping'), clock++);
      await deliver(api, '/', body);
      const [stored] = await storedEvents(api, { id: idOf(body) });
      expect(stored.answer).toEqual({ reply: 'pong', auto_escape: false });
      expect(typeof stored.rule_id).toBe('string');
    });

    test('the same message again, on any route, is stored once and answered once, whatever the rules say by then', async () => {
      const body = bodyOf(message('private', 'weather now', { user_id: 20009 }), clock++);
      expect((await deliver(api, '/', body)).body).toEqual({ reply: 'sunny', auto_escape: false });
      const changed = await api.post('/api/db/onebot_rule/update', { filters: { pattern: 'weather', priority: 1 }, values: { reply: 'snow' } });
      expect(changed.body.data.updated).toBe(1);
      expect((await post(message('private', 'weather now'))).body.reply).toBe('snow');
      // From a sender that never re-sends (LLOneBot), a copy is no re-send: nothing to answer again.
      const llonebot = { userAgent: 'node' };
      for (const route of ROUTES) expect((await deliver(api, route, body, llonebot)).body).toEqual({});
      const again = await Promise.all(ROUTES.map((route) => deliver(api, route, body, llonebot)));
      expect(again.map((r) => r.body)).toEqual(ROUTES.map(() => ({})));
      expect(await storedEvents(api, { user_id: 20009 })).toHaveLength(1);
    });
  });

  describe('request rules', () => {
    beforeAll(async () => {
      await createRule({ request_type: 'friend', approve: true, remark: 'from the bot' });
      await createRule({ request_type: 'group', approve: true, match: 'keyword', pattern: '42', group_id: 30003 });
      await createRule({ request_type: 'group', approve: false, reason: 'wrong answer', group_id: 30003, priority: -1 });
    });

    test('friend requests are approved with the remark', async () => {
      expect((await post(EVENTS['request friend'])).body).toEqual({ approve: true, remark: 'from the bot' });
    });

    test('group requests: approved when the comment matches, else rejected with the reason; other groups untouched', async () => {
      expect((await post(EVENTS['request group'])).body).toEqual({ approve: true });
      expect((await post({ ...EVENTS['request group'], comment: 'answer: 41' })).body).toEqual({ approve: false, reason: 'wrong answer' });
      expect((await post({ ...EVENTS['request group'], group_id: 1 })).status).toBe(200);
    });

    test('message rules never answer requests, request rules never answer messages', async () => {
      expect((await post({ ...EVENTS['request friend'], comment: 'ping' })).body).toEqual({ approve: true, remark: 'from the bot' });
      expect((await post(message('private', 'hello'))).status).toBe(200);
    });
  });
});
