import { parseExactJson } from '../../../../shared/json/exact-json';
import { parseEvent } from '../../../../shared/onebot/verify/parse';

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
