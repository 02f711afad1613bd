import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { parseExactJson } from '../../../shared/json/exact-json';
import { eventFields } from '../../../shared/onebot/event';
import { parseEvent } from '../../../shared/onebot/verify/parse';

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
