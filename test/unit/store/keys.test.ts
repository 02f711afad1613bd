import fc from 'fast-check';
import { indexSortKey, sortableValue, VALUE_AFTER, VALUE_END } from '../../../shared/store/keys';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

test('string encodings keep UTF-8 byte order, including control characters', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
      const plain = Math.sign(Buffer.compare(utf8(a), utf8(b)));
      expect(Math.sign(Buffer.compare(utf8(indexSortKey(a, 'id')), utf8(indexSortKey(b, 'id'))))).toBe(a === b ? 0 : plain);
    }),
    { numRuns: 3000 },
  );
  expect(Buffer.compare(utf8(indexSortKey('a', 'z')), utf8(indexSortKey('a\u0000', 'a')))).toBeLessThan(0);
  expect(Buffer.compare(utf8(indexSortKey('a\u0001', 'a')), utf8(indexSortKey('a\u0002', 'a')))).toBeLessThan(0);
});

test('a value bound sits between keys of smaller, equal and greater values', () => {
  const key = (v: unknown) => utf8(indexSortKey(v, '01ID'));
  const low = utf8(sortableValue(5) + VALUE_END);
  const high = utf8(sortableValue(5) + VALUE_AFTER);
  expect(Buffer.compare(key(4.99), low)).toBeLessThan(0);
  expect(Buffer.compare(low, key(5))).toBeLessThan(0);
  expect(Buffer.compare(key(5), high)).toBeLessThan(0);
  expect(Buffer.compare(high, key(5.01))).toBeLessThan(0);
  expect(Buffer.compare(high, key(50))).toBeLessThan(0);
});

test('missing values sort before every present value', () => {
  expect(Buffer.compare(utf8(sortableValue(undefined)), utf8(sortableValue(-1e100)))).toBeLessThan(0);
  expect(Buffer.compare(utf8(sortableValue(undefined)), utf8(sortableValue('')))).toBeLessThan(0);
});
