import { parseExactJson } from '../../../../shared/json/exact-json';
import type { OneBotEvent } from '../../../../shared/onebot/event';
import { identityOf } from '../../../../shared/onebot/store/dedupe';

const event = (text: string) => parseExactJson(text) as OneBotEvent;

test('the identity is the bot and the whole event, whatever order its keys came in', () => {
  const a = identityOf(event('{"post_type":"notice","notice_type":"notify","sender":{"a":1,"b":2}}'), 10001);
  expect(identityOf(event('{"sender":{"b":2,"a":1},"notice_type":"notify","post_type":"notice"}'), '10001')).toEqual(a);
  expect(identityOf(event('{"post_type":"notice","notice_type":"notify","sender":{"a":1,"b":3}}'), 10001).key).not.toBe(a.key);
  expect(identityOf(event('{"post_type":"notice","notice_type":"notify","sender":{"a":1,"b":2}}'), 10002).key).not.toBe(a.key);
});

test('ids past 2^53 are told apart by every digit', () => {
  const one = identityOf(event('{"post_type":"message","message_id":1482675043933618437}'), 10001);
  const next = identityOf(event('{"post_type":"message","message_id":1482675043933618438}'), 10001);
  expect(one.key).not.toBe(next.key);
});

test.each([
  ['a message with an id', '{"post_type":"message","message_id":5}', 'natural'],
  ["the bot's own message with an id", '{"post_type":"message_sent","message_id":"5"}', 'natural'],
  ['a request with a flag', '{"post_type":"request","flag":"f1"}', 'natural'],
  ['a message without an id', '{"post_type":"message"}', 'bare'],
  ['a request with an empty flag', '{"post_type":"request","flag":""}', 'bare'],
  ['a notice', '{"post_type":"notice","message_id":5}', 'bare'],
  ['a heartbeat', '{"post_type":"meta_event","meta_event_type":"heartbeat"}', 'bare'],
])('%s is a %s identity', (_name, text, kind) => {
  expect(identityOf(event(text), 10001).kind).toBe(kind);
});
