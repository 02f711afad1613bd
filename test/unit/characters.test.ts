import fc from 'fast-check';
import { characterCount, withinCharacters } from '../../shared/characters';
import { fuzzed } from '../support/fuzz';

test.each<[string, number]>([
  ['', 0],
  ['abc', 3],
  ['😀', 1],
  ['😀'.repeat(101), 101],
  [`${'a'.repeat(199)}😀`, 200],
  ['\ud800', 1],
  ['\udc00\ud800', 2],
  ['e\u0301', 2],
])('%j has %d characters (code points)', (text, count) => {
  expect(characterCount(text)).toBe(count);
});

test('counts as JSON Schema does (code points), and withinCharacters agrees with it', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.nat(60), (text, max) => {
      expect(characterCount(text)).toBe([...text].length);
      expect(withinCharacters(text, max)).toBe([...text].length <= max);
    }),
    fuzzed(500, 301),
  );
});
