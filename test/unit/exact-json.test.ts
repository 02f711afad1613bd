import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';

test('numbers a double cannot hold stay exact both ways', () => {
  const text = '{"a":18446744073709551617,"b":0.1,"c":-1482675043933618437,"d":1e2,"e":[123456789012345678901234567890]}';
  const value = parseExactJson(text) as Record<string, unknown>;
  expect(value.a).toBeInstanceOf(NumberValue);
  expect(value.b).toBe(0.1);
  expect(value.d).toBe(100);
  expect(stringifyExactJson(value)).toBe('{"a":18446744073709551617,"b":0.1,"c":-1482675043933618437,"d":100,"e":[123456789012345678901234567890]}');
});

test('a __proto__ key stays data and never becomes a prototype', () => {
  const value = parseExactJson('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}') as Record<string, unknown>;
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('malformed JSON throws', () => {
  expect(() => parseExactJson('{"a":')).toThrow();
  expect(() => parseExactJson('{"a":1}x')).toThrow();
});

test('answers with and without exact numbers are written the same way JSON would', () => {
  const plain = { a: [1, 0.1, -0, 'x', null, true], b: { c: 'é👍', d: undefined } };
  expect(stringifyExactJson(plain)).toBe(JSON.stringify(plain));
  const mixed = { ...plain, big: NumberValue.from('18446744073709551617') };
  expect(stringifyExactJson(mixed)).toBe(`${JSON.stringify(plain).slice(0, -1)},"big":18446744073709551617}`);
});
