import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { ItemTooLarge } from '../../../../shared/store/errors';
import { checkItemSize, itemBytes } from '../../../../shared/store/write/item-size';
import { AWS_LIMITS } from '../../../../shared/limits';

test('a string counts its UTF-8 bytes, and each attribute its name', () => {
  expect(itemBytes({ a: 'xy' })).toBe(1 + 2);
  expect(itemBytes({ a: 'é' })).toBe(1 + 2);
  expect(itemBytes({ a: '😀' })).toBe(1 + 4);
});

test('a number counts 1 byte plus 1 per two significant digits, however it is written', () => {
  expect(itemBytes({ n: 7 })).toBe(1 + 1 + 1);
  expect(itemBytes({ n: 123 })).toBe(1 + 1 + 2);
  expect(itemBytes({ n: 1000 })).toBe(itemBytes({ n: 1 }));
  expect(itemBytes({ n: NumberValue.from('12345678901234567890') })).toBe(1 + 1 + 10);
});

test('null and booleans take 1 byte; lists and maps 3, plus 1 and the size (and key) of each element', () => {
  expect(itemBytes({ a: null, b: true })).toBe(1 + 1 + 1 + 1);
  expect(itemBytes({ l: ['ab', 'c'] })).toBe(1 + 3 + (1 + 2) + (1 + 1));
  expect(itemBytes({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
});

test("checkItemSize refuses an item over DynamoDB's item size, naming the record and its size, and lets one at the size pass", () => {
  const at = { d: 'x'.repeat(AWS_LIMITS.dynamoItemBytes - 1) };
  expect(() => checkItemSize(at, 'r1')).not.toThrow();
  const over = { d: `${at.d}x` };
  expect(() => checkItemSize(over, 'r1')).toThrow(ItemTooLarge);
  expect(() => checkItemSize(over, 'r1')).toThrow(expect.objectContaining({ id: 'r1', bytes: AWS_LIMITS.dynamoItemBytes + 1 }));
});
