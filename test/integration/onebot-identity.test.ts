import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApi } from '../support/api';
import { useClock } from '../support/clock';
import { spyOnLog } from '../support/log';
import { startBotApi } from '../support/onebot-api-standin';
import {
  firstCollision,
  goCqhttp,
  goCqhttpMessageId,
  lagrange,
  lagrangeFriendFlag,
  lagrangeMessageId,
  llOneBot,
  llOneBotMessageId,
  napCat,
  napCatFriendFlag,
  napCatMessageId,
  type Json,
  type SenderEmulation,
} from '../support/onebot-senders';
import { useSteerableProxy } from '../support/steerable-proxy';
import { groupPoke, ROUTES, spoolDrained, storedEvents } from './onebot-fixtures';

// Issue 21: which deliveries are one event. Each sender's ids repeat (its own id function, in
// test/support/onebot-senders.ts); only a re-send may be merged with what was stored, and only
// a re-send gets a stored answer again. Time moves by the clock, never by sleeping.
const SECRET = 'identity-secret';
process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-identity-'));
const TOKEN = 'identity-api-token';
process.env.ONEBOT_ACCESS_TOKEN = TOKEN;

const api = useApi();
const proxy = useSteerableProxy();
const clock = useClock();
const HOUR = 3_600_000;
const GROUP = 30021;
const USER = 40021;

const withSecret = (on: boolean) => {
  if (on) process.env.ONEBOT_SECRET = SECRET;
  else delete process.env.ONEBOT_SECRET;
};
beforeAll(() => withSecret(true));
afterEach(() => withSecret(true));

let nextRule = 0;
/** A rule answering `pattern` with `reply`, unique per test so that rules do not meet. */
const pingRule = async (): Promise<{ ping: string; pong: string }> => {
  const n = nextRule++;
  const rule = { match: 'exact', pattern: `ping ${n}`, reply: `pong ${n}` };
  expect((await api.post('/api/db/onebot_rule/create', { data: rule })).status).toBe(201);
  return { ping: rule.pattern, pong: rule.reply };
};

const privateMessage = (messageId: number, text: string): Json => ({
  post_type: 'message',
  message_type: 'private',
  sub_type: 'friend',
  message_id: messageId,
  user_id: USER,
  message: text,
  raw_message: text,
  font: 0,
  sender: { user_id: USER, nickname: 'alice' },
});
const groupMessage = (messageId: number, text: string): Json => ({
  post_type: 'message',
  message_type: 'group',
  sub_type: 'normal',
  message_id: messageId,
  group_id: GROUP,
  user_id: USER + 1,
  anonymous: null,
  message: text,
  raw_message: text,
  font: 0,
  sender: { user_id: USER + 1, nickname: 'bob' },
});

/** A message_id each sender really gives two different messages: the first collision of its own id function. */
const COLLIDING: Record<string, () => number> = {
  NapCat: () => {
    // QQNT msgIds in one group, as NapCat turns them into its 31-bit ids.
    const msgId = (n: number) => String(7_404_000_000_000_000_000n + BigInt(n) * 7_919n);
    const [a, b] = firstCollision((n) => napCatMessageId(msgId(n), 2, String(GROUP)));
    expect(msgId(a)).not.toBe(msgId(b));
    return napCatMessageId(msgId(a), 2, String(GROUP));
  },
  LLOneBot: () => {
    const m = (n: number) => ({
      chatType: 2,
      peerUid: String(GROUP),
      msgSeq: String(n),
      msgRandom: String((n * 2_654_435_761) >>> 0),
      msgTime: String(1_790_000_000 + n),
    });
    const [a] = firstCollision((n) => llOneBotMessageId(m(n)));
    return llOneBotMessageId(m(a));
  },
  'go-cqhttp': () => {
    // Messages across 997 chats: a CRC-32 is linear, so one chat's sequences alone never collide.
    const chat = (n: number): [number, number] => [GROUP + (n % 997) * 7_919, 100 + Math.floor(n / 997)];
    const [a] = firstCollision((n) => goCqhttpMessageId(...chat(n)));
    return goCqhttpMessageId(...chat(a));
  },
  // Sequences 65,536 apart with the same random's low 16 bits.
  'Lagrange.OneBot': () => {
    const [a, b] = firstCollision((seq) => lagrangeMessageId(0x5eed, seq));
    expect(b - a).toBe(65_536);
    return lagrangeMessageId(0x5eed, a);
  },
};

let nextBot = 21_000;
const emulation = (name: string, secret: boolean, time?: () => number): { bot: number; sender: SenderEmulation } => {
  const bot = nextBot++;
  const key = secret ? SECRET : undefined;
  const sender = {
    NapCat: () => napCat({ selfId: bot, token: key, time }),
    LLOneBot: () => llOneBot({ selfId: bot, token: key, time }),
    'go-cqhttp': () => goCqhttp({ selfId: bot, secret: key }),
    'Lagrange.OneBot': () => lagrange({ selfId: bot, secret: key }),
  }[name]!();
  return { bot, sender };
};

/**
 * The repro of finding 1: a private "ping" that a rule answers, then an hour later another
 * message with the same id. Two records; the second answered on its own merits (nothing), never
 * with the first's reply.
 */
async function collisionReplay(name: string, url: string, secret: boolean): Promise<void> {
  withSecret(secret);
  const { ping, pong } = await pingRule();
  const messageId = COLLIDING[name]();
  const { bot, sender } = emulation(name, secret);
  const first = await sender.post(url, privateMessage(messageId, ping));
  clock.advance(HOUR);
  const second = await sender.post(url, groupMessage(messageId, 'hello everyone'));
  expect([first.status, second.status]).toEqual([200, 200]);
  if (name !== 'Lagrange.OneBot') {
    expect(first.sent).toBe(pong);
    // Before: {"reply":"pong"}, and the bot said "pong" in the group.
    expect(second.sent).toBeUndefined();
  }
  const stored = await storedEvents(api, { self_id: bot });
  // Lagrange never reads an answer, so none is given (docs/onebot.md): the rule is recorded.
  expect(stored.map((e) => [String(e.message_id), e.detail_type, e.answer?.reply ?? e.rule_id !== undefined]).sort()).toEqual([
    [String(messageId), 'group', false],
    [String(messageId), 'private', name === 'Lagrange.OneBot' ? true : pong],
  ]);
}

describe('finding 1: message ids repeat; two messages sharing one are two events', () => {
  // The routes share one function: the matrix runs this one case on each, signed and not.
  describe.each(ROUTES)('POST %s', (route) => {
    test.each([true, false])('NapCat, secret %s: stored twice, each answered on its own', (secret) => collisionReplay('NapCat', `${api.url}${route}`, secret));
  });

  test.each(['LLOneBot', 'go-cqhttp', 'Lagrange.OneBot'])('%s: the same, with its own id function', (name) =>
    collisionReplay(name, `${api.url}/onebot/v11/`, true),
  );
});

describe('finding 2: request flags repeat; an approve acts on the request it was decided for', () => {
  const friendRequest = (userId: number, comment: string, flag: string): Json => ({
    post_type: 'request',
    request_type: 'friend',
    user_id: userId,
    comment,
    flag,
  });
  const requestRule = async (pattern: string, approve: boolean) =>
    expect((await api.post('/api/db/onebot_rule/create', { data: { request_type: 'friend', match: 'exact', pattern, approve } })).status).toBe(201);

  test('NapCat: two people asking in the same second (flag = the second) are two requests, each answered its own way', async () => {
    await requestRule('from alice 2a', true);
    await requestRule('from bob 2a', false);
    const second = 1_800_000_123;
    const { bot, sender } = emulation('NapCat', true, () => second);
    const alice = await sender.post(`${api.url}/onebot/v11/`, friendRequest(50001, 'from alice 2a', napCatFriendFlag(second)));
    const bob = await sender.post(`${api.url}/onebot/v11/`, friendRequest(50002, 'from bob 2a', napCatFriendFlag(second)));
    expect(alice.handled).toEqual({ approve: true });
    // Before: bob's request was not stored and got alice's approve.
    expect(bob.handled).toEqual({ approve: false });
    const stored = await storedEvents(api, { self_id: bot });
    expect(stored.map((e) => [Number(e.user_id), e.answer.approve]).sort()).toEqual([
      [50001, true],
      [50002, false],
    ]);
  });

  test('Lagrange.OneBot: the same person asking again a week later (flag = their uid) is a new request, and the API is called for it', async () => {
    const botApi = await startBotApi(TOKEN);
    const { bot, sender } = emulation('Lagrange.OneBot', true);
    process.env.ONEBOT_API_ROOTS = JSON.stringify({ [bot]: `${botApi.url}/` });
    try {
      await requestRule('let me in 2b', true);
      const flag = lagrangeFriendFlag('u_Q1a2b3c4d5e6f7g8h9');
      await sender.post(`${api.url}/onebot/v11/`, friendRequest(50003, 'let me in 2b', flag));
      clock.advance(7 * 24 * HOUR);
      await sender.post(`${api.url}/onebot/v11/`, friendRequest(50003, 'let me in 2b', flag));
      expect(botApi.calls.map((c) => [c.action, c.params.flag])).toEqual([
        ['set_friend_add_request', flag],
        ['set_friend_add_request', flag],
      ]);
      expect(await storedEvents(api, { self_id: bot })).toHaveLength(2);
    } finally {
      delete process.env.ONEBOT_API_ROOTS;
      await botApi.close();
    }
  });
});

describe('finding 3: go-cqhttp re-sends only after a failed attempt', () => {
  const poke = groupPoke(GROUP, USER, 1);

  // Real re-sends, after a first answered too late for go-cqhttp: onebot-resends.test.ts.
  test('two identical pokes answered at once are two events; copies of a message answered in time are no re-sends', async () => {
    const { bot, sender } = emulation('go-cqhttp', true);
    const url = `${api.url}/onebot/v11/`;
    // Two real pokes in one second, serialised alike (Go's map order repeats): both answered at once.
    const bytes = sender.serialize(poke);
    expect((await sender.resend(url, poke, bytes)).status).toBe(200);
    expect((await sender.resend(url, poke, bytes)).status).toBe(200);
    expect(await storedEvents(api, { self_id: bot })).toHaveLength(2);

    // A message answered in time, the same bytes again on go-cqhttp's retry schedule: go-cqhttp had
    // its answer, so these are copies (two post URLs, say), not re-sends (issue 30).
    const { ping, pong } = await pingRule();
    const message = privateMessage(7_777, ping);
    const cached = sender.serialize(message);
    const answers: Array<string | undefined> = [];
    for (let attempt = 0; attempt <= 3; attempt++) {
      if (attempt > 0) clock.advance(5_000 + 1_500);
      answers.push((await sender.resend(url, message, cached)).sent);
    }
    // Replied once: a copy never gets the answer again.
    expect(answers).toEqual([pong, undefined, undefined, undefined]);
    expect(await storedEvents(api, { self_id: bot, post_type: 'message' })).toHaveLength(1);
  });

  test('the same message delivered twice at once is stored once and answered once', async () => {
    const { ping, pong } = await pingRule();
    const { bot, sender } = emulation('go-cqhttp', true);
    const message = privateMessage(7_778, ping);
    const bytes = sender.serialize(message);
    const url = `${api.url}/onebot/v11/`;
    const answers = [(await sender.resend(url, message, bytes)).sent, (await sender.resend(url, message, bytes)).sent];
    // go-cqhttp cannot have re-sent it yet: no second reply in the chat.
    expect(answers).toEqual([pong, undefined]);
    expect(await storedEvents(api, { self_id: bot })).toHaveLength(1);
  });
});

describe('finding 4: replays are bounded', () => {
  test('a signed NapCat notice replayed 5 times, an hour apart: stored once, each replay answered {}', async () => {
    const { bot, sender } = emulation('NapCat', true);
    const url = `${api.url}/onebot/v11/`;
    const poke = groupPoke(GROUP, USER, 2);
    const bytes = sender.serialize(poke);
    const warn = spyOnLog('warn');
    expect((await sender.resend(url, poke, bytes)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      clock.advance(HOUR);
      expect((await sender.resend(url, poke, bytes)).quick).toEqual({});
    }
    expect(await storedEvents(api, { self_id: bot })).toHaveLength(1);
    expect(warn.mock.calls.filter(([line]) => String(line).includes('onebot_replay_ignored'))).toHaveLength(5);
    warn.mockRestore();
  });

  test('go-cqhttp: identical bytes two minutes later, outside its re-send window, are a replay', async () => {
    const { bot, sender } = emulation('go-cqhttp', true);
    const url = `${api.url}/onebot/v11/`;
    const poke = groupPoke(GROUP, USER, 3);
    const bytes = sender.serialize(poke);
    await sender.resend(url, poke, bytes);
    clock.advance(120_000);
    await sender.resend(url, poke, bytes);
    expect(await storedEvents(api, { self_id: bot })).toHaveLength(1);
  });

  test('a signed message older than 5 minutes is stored once and never answered; unsigned, age is not judged', async () => {
    const { ping, pong } = await pingRule();
    const tenMinutesAgo = () => Math.floor(Date.now() / 1000) - 600;
    const signed = emulation('NapCat', true, tenMinutesAgo);
    const outcome = await signed.sender.post(`${api.url}/onebot/v11/`, privateMessage(7_779, ping));
    expect(outcome.sent).toBeUndefined();
    const [stored] = await storedEvents(api, { self_id: signed.bot });
    expect(stored.done).toEqual({ via: 'none', reason: 'too_old' });

    withSecret(false);
    const unsigned = emulation('NapCat', false, tenMinutesAgo);
    expect((await unsigned.sender.post(`${api.url}/onebot/v11/`, privateMessage(7_779, ping))).sent).toBe(pong);
  });
});

test('finding 5: LLOneBot is told by its User-Agent (node, from fetch) and recorded as such', async () => {
  const { bot, sender } = emulation('LLOneBot', true);
  await sender.post(`${api.url}/onebot/v11/`, groupPoke(GROUP, USER, 4));
  const [stored] = await storedEvents(api, { self_id: bot });
  expect(stored.sender).toBe('LLOneBot');
});

test('issue 20 finding 4: with the database answers lost, each kept delivery is stored once after the heal', async () => {
  const { bot, sender } = emulation('NapCat', true);
  const url = `${api.url}/onebot/v11/`;
  const log = spyOnLog('warn');
  await proxy.set('drop');
  // The creates reach the engine and are applied; their answers never come: each delivery is kept.
  const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => sender.post(url, groupPoke(GROUP, USER + i, 5))));
  expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill(200));
  expect(log.mock.calls.filter(([line]) => String(line).includes('"onebot_event_kept"'))).toHaveLength(6);
  log.mockRestore();
  await proxy.set('pass');
  await spoolDrained(60_000);
  // Before: 12 records, each poke twice with the same received_at.
  const stored = await storedEvents(api, { self_id: bot });
  expect(stored.map((e) => Number(e.user_id)).sort()).toEqual(Array.from({ length: 6 }, (_, i) => USER + i));
}, 90_000);
