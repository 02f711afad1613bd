import { apiCallOf, apiRootOf, parseApiRoots } from '../../../../shared/onebot/decide/api-call';
import type { OneBotEvent } from '../../../../shared/onebot/event';

afterEach(() => {
  delete process.env.ONEBOT_API_ROOTS;
});

test.each([
  ['not json', /ONEBOT_API_ROOTS is not JSON/],
  ['{"bot":"http://127.0.0.1:5700"}', /Invalid key in record/],
  ['{"10001":"ftp://127.0.0.1"}', /ONEBOT_API_ROOTS/],
])('ONEBOT_API_ROOTS %s is refused, saying why', (text, message) => {
  expect(() => parseApiRoots(text)).toThrow(message);
});

test("a bot's root is found by its id in any spelling; another bot, or no setting, has none", () => {
  expect(apiRootOf(10001)).toBeUndefined();
  process.env.ONEBOT_API_ROOTS = '{"10001":"http://127.0.0.1:5700/"}';
  expect(apiRootOf(10001)).toBe('http://127.0.0.1:5700/');
  expect(apiRootOf('10001')).toBe('http://127.0.0.1:5700/');
  expect(apiRootOf(10002)).toBeUndefined();
  expect(apiRootOf({})).toBeUndefined();
  // Read again when the setting changes.
  process.env.ONEBOT_API_ROOTS = '{"10002":"http://127.0.0.1:5701"}';
  expect(apiRootOf(10002)).toBe('http://127.0.0.1:5701');
  process.env.ONEBOT_API_ROOTS = '[1]';
  expect(() => apiRootOf(10002)).toThrow(/ONEBOT_API_ROOTS/);
});

const as = (event: Record<string, unknown>) => event as OneBotEvent;

test('a reply becomes send_msg to the group or the user it answers', () => {
  expect(apiCallOf(as({ post_type: 'message', message_type: 'group', group_id: 5, user_id: 7 }), { reply: 'hi', auto_escape: true })).toEqual({
    action: 'send_msg',
    params: { message_type: 'group', group_id: 5, message: 'hi', auto_escape: true },
  });
  expect(apiCallOf(as({ post_type: 'message', message_type: 'private', user_id: 7 }), { reply: 'hi' })).toEqual({
    action: 'send_msg',
    params: { message_type: 'private', user_id: 7, message: 'hi', auto_escape: undefined },
  });
});

test('an approval answers the request it was asked by, remark and reason only when given', () => {
  expect(apiCallOf(as({ post_type: 'request', request_type: 'friend', flag: 'f1' }), { approve: true, remark: 'pal' })).toEqual({
    action: 'set_friend_add_request',
    params: { flag: 'f1', approve: true, remark: 'pal' },
  });
  expect(apiCallOf(as({ post_type: 'request', request_type: 'group', sub_type: 'add', flag: 'f2' }), { approve: false })).toEqual({
    action: 'set_group_add_request',
    params: { flag: 'f2', sub_type: 'add', approve: false },
  });
});

test('an event no action answers has no call', () => {
  expect(apiCallOf(as({ post_type: 'notice', notice_type: 'notify' }), { reply: 'hi' })).toBeUndefined();
});
