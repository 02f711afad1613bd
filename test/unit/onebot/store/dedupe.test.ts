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

// A message or request carries an id, so the same content is the same event; anything else can
// be two events of one second (two pokes).
const NATURAL = ['{"post_type":"message","message_id":5}', '{"post_type":"message_sent","message_id":"5"}', '{"post_type":"request","flag":"f1"}'];
const BARE = ['{"post_type":"message"}', '{"post_type":"request","flag":""}', '{"post_type":"notice","message_id":5}', '{"post_type":"meta_event"}'];

test('an event with an id of its kind is a natural identity; any other is bare', () => {
  expect(NATURAL.map((text) => identityOf(event(text), 10001).kind)).toEqual(NATURAL.map(() => 'natural'));
  expect(BARE.map((text) => identityOf(event(text), 10001).kind)).toEqual(BARE.map(() => 'bare'));
});
