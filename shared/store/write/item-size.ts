import { parseDecimal } from '../../json/decimal';
import { isExactNumber, numberText } from '../../json/exact-json';
import { AWS_LIMITS } from '../../limits';
import { ItemTooLarge } from '../errors';

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Bytes of one value as DynamoDB counts them (its "Item sizes and formats" page): strings by
 * their UTF-8 bytes, numbers 1 byte plus 1 per two significant digits, booleans and null
 * 1 byte, lists and maps 3 bytes plus 1 byte and the size (and, in maps, the key) of each element.
 */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8Bytes(value);
  if (isExactNumber(value)) return 1 + Math.ceil((parseDecimal(numberText(value))?.digits.length ?? 0) / 2);
  if (value === null || typeof value === 'boolean' || value === undefined) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueBytes(v), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [k, v]) => sum + 1 + utf8Bytes(k) + valueBytes(v), 0);
}

/** The size DynamoDB gives an item: each top-level attribute's name and value. */
export const itemBytes = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + utf8Bytes(name) + valueBytes(value), 0);

/**
 * Refuses an item DynamoDB would refuse, before it is written, so that every engine answers
 * alike (dynalite counts UTF-16 units and stored 600,000-byte emoji strings).
 */
export function checkItemSize(item: Record<string, unknown>, id: string): void {
  const bytes = itemBytes(item);
  if (bytes > AWS_LIMITS.dynamoItemBytes) throw new ItemTooLarge(id, bytes, AWS_LIMITS.dynamoItemBytes);
}
