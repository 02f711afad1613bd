import fc from 'fast-check';
import { JsonNumber, parseJson, stringifyJson } from '../../../client/src/json';
import { fitsJsNumber } from '../../../shared/json/decimal';

/**
 * The client package's own exact-number JSON against two references: JSON.parse and
 * JSON.stringify for everything but numbers, and the service's fitsJsNumber
 * (shared/json/decimal.ts) for which numbers stay JS numbers.
 */
const numberText = fc
  .tuple(fc.boolean(), fc.stringMatching(/^(?:0|[1-9]\d{0,40})$/), fc.option(fc.stringMatching(/^\d{1,40}$/)), fc.option(fc.integer({ min: -330, max: 330 })))
  .map(
    ([minus, whole, fraction, exponent]) => `${minus ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `e${exponent}`}`,
  );

test('a number stays a JS number exactly when the service would keep it one, and a JsonNumber keeps its digits', () => {
  fc.assert(
    fc.property(numberText, (text) => {
      const parsed = parseJson(text);
      if (fitsJsNumber(text)) expect(parsed).toBe(Number(text));
      else expect(parsed).toEqual(new JsonNumber(text));
      expect(stringifyJson({ n: parsed })).toBe(`{"n":${fitsJsNumber(text) ? JSON.stringify(Number(text)) : text}}`);
    }),
    { numRuns: 2_000 },
  );
});

test('everything else reads and writes as JSON.parse and JSON.stringify do', () => {
  const safe = fc.jsonValue().filter((value) => !JSON.stringify(value).match(/\d{16,}|e/i));
  fc.assert(
    fc.property(safe, (value) => {
      const text = JSON.stringify(value, null, 1);
      expect(parseJson(text)).toEqual(JSON.parse(text));
      expect(stringifyJson(JSON.parse(text))).toBe(JSON.stringify(JSON.parse(text)));
    }),
  );
});

test('what is not JSON is refused, and a "__proto__" key is data, not a prototype', () => {
  for (const text of ['', '{', '[1,]', '{"a":1,}', '01', '"\u0001"', '"\\x"', 'nul', '1 2', "{'a':1}"]) expect(() => parseJson(text)).toThrow(SyntaxError);
  const parsed = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  expect(Object.keys(parsed)).toEqual(['__proto__']);
});
