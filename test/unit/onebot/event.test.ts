import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { parseExactJson } from '../../../shared/json/exact-json';
import { eventFields, parseEvent } from '../../../shared/onebot/event';

test('the filterable fields of an event, ids exact', () => {
  const event = parseEvent(
    parseExactJson(
      '{"time":1,"self_id":1482675043933618437,"post_type":"notice","notice_type":"notify","sub_type":"poke","user_id":"u1","group_id":-5,"message_id":[1]}',
    ),
  );
  const fields = eventFields(event, '9');
  expect(fields).toEqual({
    self_id: expect.any(NumberValue),
    post_type: 'notice',
    detail_type: 'notify',
    sub_type: 'poke',
    time: 1,
    user_id: 'u1',
    group_id: -5,
  });
  expect(String(fields.self_id)).toBe('1482675043933618437');
});

test.each([
  ['10001', 10001],
  ['0', 0],
  ['0123', '0123'],
  ['bot-a', 'bot-a'],
])('X-Self-ID %j files as %j when the body has no self_id', (header, expected) => {
  expect(eventFields(parseEvent({ post_type: 'x' }), header).self_id).toEqual(expected);
});

test.each([[[]], ['x'], [null], [{}], [{ post_type: 1 }], [{ post_type: 'x', self_id: {} }]])('%j is not an event', (body) => {
  expect(() => parseEvent(body)).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400 }));
});

// Issue 30, finding 8: what can be stored is an event, these keys included (the record keeps such an event whole).
test.each([
  '{"post_type":""}',
  '{"post_type":"notice","":1}',
  '{"post_type":"notice","__proto__":{"polluted":true}}',
  '{"post_type":"notice","sender":{"constructor":{"prototype":{"polluted":true}}}}',
])('%s is an event', (text) => {
  expect(parseEvent(parseExactJson(text))).toEqual(parseExactJson(text));
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
