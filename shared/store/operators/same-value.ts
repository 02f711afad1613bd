import { compareDecimal } from '../../json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../json/exact-json';

/**
 * Whether two JSON values are equal as a filter's $eq compares them (as DynamoDB does): numbers
 * by value (1 and 1.0, a number and its exact NumberValue), arrays element by element in order,
 * objects by the same keys in any order.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isExactNumber(a) && isExactNumber(b)) return compareDecimal(numberText(a), numberText(b)) === 0;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return a === b;
}
