import { useApi } from '../support/api';
import { useClock } from '../support/clock';
import { spyOnLog } from '../support/log';
import { startBotApi } from '../support/onebot-api-standin';
import { goCqhttp, lagrange, llOneBot, napCat, type Json, type SenderEmulation } from '../support/onebot-senders';
import { storedEvents } from './onebot-fixtures';

// The receiver against emulations of the four real senders (test/support/onebot-senders.ts),
// each signing with the secret its own way. One bot account per sender.
const SECRET = 'shared-秘密';
const TOKEN = 'api-token-1';
process.env.ONEBOT_SECRET = SECRET;
process.env.ONEBOT_ACCESS_TOKEN = TOKEN;

const api = useApi();
const clock = useClock();
const url = () => `${api.url}/onebot/v11/`;
const BOTS = { gocq: 20101, napcat: 20102, llonebot: 20103, lagrange: 20104 };
const GROUP = 30101;
const USER = 40101;

const senders: Record<string, SenderEmulation> = {
  'go-cqhttp': goCqhttp({ selfId: BOTS.gocq, secret: SECRET }),
  NapCat: napCat({ selfId: BOTS.napcat, token: SECRET }),
  LLOneBot: llOneBot({ selfId: BOTS.llonebot, token: SECRET }),
  'Lagrange.OneBot': lagrange({ selfId: BOTS.lagrange, secret: SECRET }),
};
const readers = ['go-cqhttp', 'NapCat', 'LLOneBot'] as const;

let nextMessageId = 1;
const groupMessage = (message: unknown, extra: Json = {}): Json => ({
  post_type: 'message',
  message_type: 'group',
  sub_type: 'normal',
  message_id: nextMessageId++,
  group_id: GROUP,
  user_id: USER,
  anonymous: null,
  message,
  raw_message: typeof message === 'string' ? message : '',
  font: 0,
  sender: { user_id: USER, nickname: 'alice', card: '', role: 'member' },
  ...extra,
});
const rule = async (data: Json) => {
  const r = await api.post('/api/db/onebot_rule/create', { data });
  expect(r.status).toBe(201);
  return r.body.data.id as string;
};

describe('every sender is served: signed, stored, answered 200 with a JSON body', () => {
  test.each(Object.keys(senders))('%s: a notice, a message and a request are stored; no warning on the answer', async (name) => {
    const sender = senders[name];
    const events: Json[] = [
      { post_type: 'notice', notice_type: 'group_increase', sub_type: 'approve', group_id: GROUP, operator_id: 1, user_id: 50000 + nextMessageId },
      groupMessage('<b> "quoted" & 你好 😀'),
      { post_type: 'request', request_type: 'friend', user_id: USER, comment: 'hello', flag: `flag-${name}` },
    ];
    for (const event of events) {
      const outcome = await sender.post(url(), event);
      // LLOneBot calls res.json() on every answer: an empty 204 made it warn each time.
      expect(outcome).toMatchObject({ status: 200, warnings: [] });
    }
    const stored = await storedEvents(api, { self_id: Object.values(BOTS)[Object.keys(senders).indexOf(name)] });
    expect(stored.map((e) => e.post_type).sort()).toEqual(['message', 'notice', 'request']);
    expect(stored.find((e) => e.post_type === 'message')!.event.message).toBe('<b> "quoted" & 你好 😀');
    // NapCat posts with http.request, which sends no User-Agent: it cannot be told from any other client.
    expect(new Set(stored.map((e) => e.sender))).toEqual(new Set([name === 'NapCat' ? 'other' : name]));
  });
});

describe('a rule that mentions the sender (at_sender)', () => {
  test.each([...readers])('%s shows the mention and the whole reply, quotes and codes intact', async (name) => {
    await rule({ match: 'exact', pattern: `mention me ${name}`, reply: 'say "hi"', auto_escape: true, at_sender: true, message_type: 'group' });
    await rule({ match: 'exact', pattern: `face me ${name}`, reply: 'a [CQ:face,id=178] &#91;b&#93;', at_sender: true });
    const said = await senders[name].post(url(), groupMessage(`mention me ${name}`));
    // go-cqhttp used to paste "[CQ:at,qq=N]" before a string reply inside JSON text: the `"` cut
    // it short, and auto_escape sent the code as literal text: "[CQ:at,qq=40101]say ".
    expect(said.sent).toBe(`@${USER} say "hi"`);
    expect((await senders[name].post(url(), groupMessage(`face me ${name}`))).sent).toBe(`@${USER} a [face] [b]`);
  });

  test('an anonymous sender cannot be mentioned: the reply alone', async () => {
    await rule({ match: 'exact', pattern: 'anon mention', reply: 'ok', at_sender: true });
    const outcome = await senders['go-cqhttp'].post(url(), groupMessage('anon mention', { sub_type: 'anonymous', anonymous: { id: 1, name: 'x', flag: 'f' } }));
    expect(outcome.sent).toBe('ok');
  });
});

describe('rules match what a person typed', () => {
  test.each([...readers])('%s: "@bot /roll 20" matches ^/roll \\d+$, as CQ text and as segments', async (name) => {
    const pattern = `^/roll${readers.indexOf(name)} \\d+$`;
    await rule({ match: 'regex', pattern, reply: 'rolled' });
    const text = `/roll${readers.indexOf(name)} 20`;
    expect((await senders[name].post(url(), groupMessage(`[CQ:at,qq=${BOTS.gocq}] ${text}  `))).sent).toBe('rolled');
    const segments = [
      { type: 'at', data: { qq: String(BOTS.napcat) } },
      { type: 'text', data: { text: ` ${text}` } },
    ];
    expect((await senders[name].post(url(), groupMessage(segments))).sent).toBe('rolled');
  });
});

describe('deduplication merges re-sends and only re-sends (more in onebot-identity.test.ts)', () => {
  const poke = { post_type: 'notice', notice_type: 'notify', sub_type: 'poke', group_id: GROUP, user_id: USER, target_id: 1 };

  test.each(['NapCat', 'LLOneBot'])('%s: the same poke twice in one second is two events', async (name) => {
    const fixed =
      name === 'NapCat'
        ? napCat({ selfId: 20201, token: SECRET, time: () => 1_800_000_000 })
        : llOneBot({ selfId: 20202, token: SECRET, time: () => 1_800_000_000 });
    const bytes = [fixed.serialize(poke), fixed.serialize(poke)];
    expect(bytes[0].equals(bytes[1])).toBe(true);
    for (let i = 0; i < 2; i++) expect((await fixed.post(url(), poke)).status).toBe(200);
    expect(await storedEvents(api, { self_id: name === 'NapCat' ? 20201 : 20202, detail_type: 'notify' })).toHaveLength(2);
  });

  test('Lagrange.OneBot: two identical notices are two events', async () => {
    const sender = lagrange({ selfId: 20203, secret: SECRET });
    const bytes = sender.serialize(poke);
    await sender.resend(url(), poke, bytes);
    await sender.resend(url(), poke, bytes);
    expect(await storedEvents(api, { self_id: 20203 })).toHaveLength(2);
  });

  // A real re-send, after a first answered too late: onebot-resends.test.ts.
  test('go-cqhttp: the same bytes again 6.5 s after a first answered in time are no re-send: the message is answered once, the poke is two', async () => {
    await rule({ match: 'exact', pattern: 'once only', reply: 'once' });
    const sender = goCqhttp({ selfId: 20204, secret: SECRET });
    const notice = sender.serialize(poke);
    const message = groupMessage('once only');
    const bytes = sender.serialize(message);
    await sender.resend(url(), poke, notice);
    const first = await sender.resend(url(), message, bytes);
    // Its 5 s timeout and 1.5 s retry interval.
    clock.advance(6_500);
    await sender.resend(url(), poke, notice);
    const answers = [first, await sender.resend(url(), message, bytes)];
    // go-cqhttp had its answer (issue 30): the message is the same one delivered twice, the poke another poke.
    expect(answers.map((a) => a.sent)).toEqual(['once', undefined]);
    expect((await storedEvents(api, { self_id: 20204 })).map((e) => e.post_type).sort()).toEqual(['message', 'notice', 'notice']);
  });

  test('a message or request is one per bot and content: a different one under the same id or flag is another', async () => {
    const sender = napCat({ selfId: 20205, token: SECRET });
    const message = groupMessage('same id');
    await sender.post(url(), message);
    await sender.post(url(), { ...message, raw_message: 'another message, the same message_id' });
    const request = { post_type: 'request', request_type: 'group', sub_type: 'add', group_id: GROUP, user_id: USER, comment: 'x', flag: 'flag-dup' };
    const bytes = sender.serialize(request);
    await sender.resend(url(), request, bytes);
    await sender.resend(url(), request, bytes);
    await sender.post(url(), { ...request, comment: 'y' });
    // Another bot's message with the same message_id is another message.
    await napCat({ selfId: 20206, token: SECRET }).post(url(), message);
    expect((await storedEvents(api, { self_id: 20205 })).map((e) => e.post_type).sort()).toEqual(['message', 'message', 'request', 'request']);
    expect(await storedEvents(api, { self_id: 20206 })).toHaveLength(1);
  });
});

describe('what is done about a rule, and how', () => {
  test('Lagrange.OneBot never reads the answer: without an API root nothing is done, and the record says so', async () => {
    const id = await rule({ match: 'exact', pattern: 'lagrange ping', reply: 'pong' });
    const message = groupMessage('lagrange ping');
    const outcome = await senders['Lagrange.OneBot'].post(url(), message);
    expect(outcome.quick).toBeUndefined();
    const [stored] = await storedEvents(api, { self_id: BOTS.lagrange, message_id: message.message_id });
    expect(stored).toMatchObject({ rule_id: id, done: { via: 'none', reason: 'sender_ignores_answers' } });
    expect(stored.answer).toBeUndefined();
    // What was not done can be listed.
    expect((await storedEvents(api, { 'done.via': 'none', self_id: BOTS.lagrange })).map((e) => e.id)).toContain(stored.id);
  });

  test('a sender that reads answers gets the quick operation, recorded as such', async () => {
    await rule({ match: 'exact', pattern: 'napcat ping', reply: 'pong' });
    const message = groupMessage('napcat ping');
    expect((await senders.NapCat.post(url(), message)).sent).toBe('pong');
    const [stored] = await storedEvents(api, { self_id: BOTS.napcat, message_id: message.message_id });
    expect(stored).toMatchObject({ answer: { reply: 'pong' }, done: { via: 'quick_operation' } });
  });

  describe("with the bot's API root configured (ONEBOT_API_ROOTS)", () => {
    let botApi: Awaited<ReturnType<typeof startBotApi>>;
    beforeAll(async () => {
      botApi = await startBotApi(TOKEN);
      process.env.ONEBOT_API_ROOTS = JSON.stringify({ [BOTS.lagrange]: `${botApi.url}/`, 20301: 'http://127.0.0.1:9/' });
    });
    afterAll(async () => {
      delete process.env.ONEBOT_API_ROOTS;
      await botApi.close();
    });

    test('a reply is send_msg with the bearer token; requests are set_*_add_request; each result is stored', async () => {
      await rule({ match: 'exact', pattern: 'api ping', reply: 'pong', at_sender: true });
      await rule({ request_type: 'friend', match: 'exact', pattern: 'api friend', approve: true, remark: 'via api' });
      await rule({ request_type: 'group', match: 'exact', pattern: 'api group', approve: false, reason: 'no' });
      const sender = senders['Lagrange.OneBot'];
      const message = groupMessage('api ping');
      await sender.post(url(), message);
      await sender.post(url(), { post_type: 'request', request_type: 'friend', user_id: USER, comment: 'api friend', flag: 'f-api' });
      await sender.post(url(), {
        post_type: 'request',
        request_type: 'group',
        sub_type: 'invite',
        group_id: GROUP,
        user_id: USER,
        comment: 'api group',
        flag: 'g-api',
      });

      expect(botApi.calls).toEqual([
        {
          action: 'send_msg',
          authorization: `Bearer ${TOKEN}`,
          params: {
            message_type: 'group',
            group_id: GROUP,
            message: [
              { type: 'at', data: { qq: String(USER) } },
              { type: 'text', data: { text: ' ' } },
              { type: 'text', data: { text: 'pong' } },
            ],
            auto_escape: false,
          },
        },
        { action: 'set_friend_add_request', authorization: `Bearer ${TOKEN}`, params: { flag: 'f-api', approve: true, remark: 'via api' } },
        { action: 'set_group_add_request', authorization: `Bearer ${TOKEN}`, params: { flag: 'g-api', sub_type: 'invite', approve: false, reason: 'no' } },
      ]);
      const stored = await storedEvents(api, { self_id: BOTS.lagrange, post_type: { $in: ['message', 'request'] } });
      const byAction = Object.fromEntries(stored.filter((e) => e.done?.via === 'api').map((e) => [e.done.action, e]));
      expect(byAction.send_msg.done).toMatchObject({ ok: true, http_status: 200, retcode: 0 });
      expect(byAction.send_msg.answer).toBeUndefined();
      expect(byAction.set_friend_add_request.done).toMatchObject({ ok: true, params: { flag: 'f-api' } });
      expect(byAction.set_group_add_request.done).toMatchObject({ ok: true, params: { flag: 'g-api' } });
    });

    test('a wrong token and an unreachable bot are logged and recorded; the delivery still stands', async () => {
      const warn = spyOnLog('warn');
      await rule({ match: 'exact', pattern: 'api unreachable', reply: 'x' });
      const far = lagrange({ selfId: 20301, secret: SECRET });
      const message = groupMessage('api unreachable');
      expect((await far.post(url(), message)).status).toBe(200);
      const [stored] = await storedEvents(api, { self_id: 20301 });
      expect(stored.done).toMatchObject({ via: 'api', action: 'send_msg', ok: false });
      expect(stored.done.error).toMatch(/unreachable/);

      process.env.ONEBOT_ACCESS_TOKEN = 'wrong';
      const again = groupMessage('api unreachable');
      expect((await senders['Lagrange.OneBot'].post(url(), again)).status).toBe(200);
      process.env.ONEBOT_ACCESS_TOKEN = TOKEN;
      const [refused] = await storedEvents(api, { self_id: BOTS.lagrange, message_id: again.message_id });
      expect(refused.done).toMatchObject({ ok: false, http_status: 403 });
      expect(warn.mock.calls.filter(([line]) => String(line).includes('bot_api_failed'))).toHaveLength(2);
      warn.mockRestore();
    });
  });
});
