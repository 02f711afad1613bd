import fc from 'fast-check';
import { decodeReplayCursor, encodeReplayCursor } from '../../../shared/feed/replay-cursor';

const cursor = fc.record({
  subscription: fc.string({ minLength: 1 }),
  range: fc.record({ from: fc.integer({ min: 0 }), until: fc.integer({ min: 0 }) }),
  position: fc.record({ done: fc.array(fc.string()), at: fc.record({ shard: fc.string(), after: fc.string() }) }, { requiredKeys: ['done'] }),
});

test('a cursor a replay answered comes back as it was', () => {
  fc.assert(fc.property(cursor, (c) => expect(decodeReplayCursor(encodeReplayCursor(c))).toEqual(c)));
});

test.each([
  ['not base64url JSON', 'not a cursor'],
  ['JSON of something else', Buffer.from('[1,2]').toString('base64url')],
  ['a position without its shard', Buffer.from(JSON.stringify({ subscription: 'a', from: 0, until: 1, done: [], at: { after: '1' } })).toString('base64url')],
  ['a field added', Buffer.from(JSON.stringify({ subscription: 'a', from: 0, until: 1, done: [], all: true })).toString('base64url')],
])('%s is no cursor', (_, text) => {
  expect(decodeReplayCursor(text)).toBeUndefined();
});
