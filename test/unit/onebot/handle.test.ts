import type { Delivery } from '../../../shared/onebot/delivery';
import type { OneBotEvent } from '../../../shared/onebot/event';
import { decideEvent } from '../../../shared/onebot/handle';

const GO_CQHTTP = { 'x-self-id': '10001', 'user-agent': 'CQHttp/4.15.0', 'content-type': 'application/json' };
const LAGRANGE = { 'x-self-id': '10001', 'content-type': 'application/json; charset=utf-8' };
const delivery = (over: Partial<Delivery> = {}): Delivery => ({
  id: 'd1',
  rawBody: Buffer.from('{}'),
  headers: GO_CQHTTP,
  receivedAt: '2026-01-01T00:00:10.000Z',
  signed: false,
  late: false,
  ...over,
});
const message = { post_type: 'message', message_type: 'group', group_id: 5, user_id: 7, message_id: 9, message: 'hi', time: 1767225610 } as OneBotEvent;
const rule = { answer: { reply: 'hello', auto_escape: false, at_sender: false }, rule_id: 'r1' };

test("an event a rule answers is recorded with the answer, the rule, how it was done and who sent it; the bot's id from the header", () => {
  const { data, todo, old, sender } = decideEvent(delivery(), message, rule, true);
  expect(old).toBe(false);
  expect(sender.name).toBe('go-cqhttp');
  expect(todo).toEqual({ done: { via: 'quick_operation' }, answer: rule.answer });
  expect(data).toEqual({
    self_id: 10001,
    post_type: 'message',
    detail_type: 'group',
    time: 1767225610,
    user_id: 7,
    group_id: 5,
    message_id: 9,
    received_at: '2026-01-01T00:00:10.000Z',
    delivery_id: 'd1',
    sender: 'go-cqhttp',
    event: message,
    answer: rule.answer,
    rule_id: 'r1',
    done: { via: 'quick_operation' },
  });
});

test('an event no rule answers records no answer, rule or action', () => {
  const { data, todo } = decideEvent(delivery(), message, {}, true);
  expect(todo).toEqual({});
  expect(data).not.toHaveProperty('answer');
  expect(data).not.toHaveProperty('rule_id');
  expect(data).not.toHaveProperty('done');
});

test('a sender that never reads the answer is not given one; the rule and the reason are still recorded', () => {
  const { data, todo } = decideEvent(delivery({ headers: LAGRANGE }), message, rule, true);
  expect(todo).toEqual({ done: { via: 'none', reason: 'sender_ignores_answers' } });
  expect(data).toMatchObject({ sender: 'Lagrange.OneBot', rule_id: 'r1', done: { via: 'none', reason: 'sender_ignores_answers' } });
  expect(data).not.toHaveProperty('answer');
});

test('a kept delivery is stored without an answer, and says it was answered late when it was', () => {
  const { data } = decideEvent(delivery({ late: true }), message, rule, false);
  expect(data).toMatchObject({ answered_late: true, done: { via: 'none', reason: 'received_while_database_unreachable' } });
  expect(data).not.toHaveProperty('answer');
});

test('a signed event too old at receipt is decided old and never acted on', () => {
  const { old, todo } = decideEvent(delivery({ signed: true, receivedAt: '2026-01-01T01:00:00.000Z' }), message, rule, true);
  expect(old).toBe(true);
  expect(todo).toEqual({ done: { via: 'none', reason: 'too_old' } });
});
