import { chooseAction, tooOld, type ActionInput } from '../../../../shared/onebot/decide/action';
import type { OneBotEvent } from '../../../../shared/onebot/event';

const event = { post_type: 'message', message_type: 'private', user_id: 7, message: 'hi' } as OneBotEvent;
const answer = { reply: 'hello', auto_escape: false };
const input = (over: Partial<ActionInput> = {}): ActionInput => ({ event, selfId: 10001, answer, readsAnswer: true, live: true, old: false, ...over });

afterEach(() => {
  delete process.env.ONEBOT_API_ROOTS;
});

test('no rule answered: nothing is done and nothing said', () => {
  expect(chooseAction(input({ answer: undefined }))).toEqual({});
});

test('a live delivery whose sender reads answers gets the quick operation', () => {
  expect(chooseAction(input())).toEqual({ done: { via: 'quick_operation' }, answer });
});

test.each([
  ['a delivery stored after the fact', { live: false }, 'received_while_database_unreachable'],
  ['a sender that ignores answers', { readsAnswer: false }, 'sender_ignores_answers'],
  ['a signed event too old to act on', { old: true }, 'too_old'],
])('%s gets no answer, and the record says why', (_name, over, reason) => {
  expect(chooseAction(input(over))).toEqual({ done: { via: 'none', reason } });
});

test("with the bot's API root configured, the answer goes through its API, kept deliveries and deaf senders included", () => {
  process.env.ONEBOT_API_ROOTS = JSON.stringify({ 10001: 'http://127.0.0.1:5700/' });
  const call = { action: 'send_msg', params: { message_type: 'private', user_id: 7, message: 'hello', auto_escape: false } };
  const viaApi = { done: { via: 'api', ...call }, call: { root: 'http://127.0.0.1:5700/', call } };
  expect(chooseAction(input())).toEqual(viaApi);
  expect(chooseAction(input({ live: false, readsAnswer: false }))).toEqual(viaApi);
  // Too old is never acted on, through the API neither; another bot has no root.
  expect(chooseAction(input({ old: true }))).toEqual({ done: { via: 'none', reason: 'too_old' } });
  expect(chooseAction(input({ selfId: 10002 }))).toEqual({ done: { via: 'quick_operation' }, answer });
});

test('an event is too old only when signed and older than maxEventAgeSeconds at receipt', () => {
  const receivedAt = '2026-01-01T00:10:00.000Z';
  const at = (iso: string) => Date.parse(iso) / 1000;
  const timed = (time: unknown) => ({ ...event, time }) as OneBotEvent;
  expect(tooOld(timed(at('2026-01-01T00:04:59.000Z')), { signed: true, receivedAt })).toBe(true);
  expect(tooOld(timed(at('2026-01-01T00:05:00.000Z')), { signed: true, receivedAt })).toBe(false);
  expect(tooOld(timed(at('2026-01-01T00:04:59.000Z')), { signed: false, receivedAt })).toBe(false);
  // No time, or not a number: nothing says it is old.
  expect(tooOld(event, { signed: true, receivedAt })).toBe(false);
  expect(tooOld(timed('1'), { signed: true, receivedAt })).toBe(false);
});
