import { compareDecimal } from '../../json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../json/exact-json';
import { sameValue } from '../operators/same-value';
import { DATA_ATTRIBUTE } from '../table';
import { utf8Order } from '../utf8-order';
import type { FilterNode } from './ast';

/**
 * The filter language's meaning in memory, on a record as the record API answers it: what the
 * change feed matches a subscription's filter with (shared/feed/check-subscriptions.ts), with the
 * very answers the compiled FilterExpression (./compile.ts) gets from the engine, which
 * test/integration/filter-evaluate.test.ts checks on both engines with random records and filters.
 *
 * - A path reaches into objects only: no implicit array traversal.
 * - Missing and null are "no value": `null`/`$exists:false` match them, `$ne`/`$nin` keep them,
 *   every other comparison is false on them.
 * - Numbers compare with numbers by value, strings with strings by UTF-8 bytes; a number and
 *   a string are never equal, less or greater.
 * - Equality of arrays is element by element in order; of objects, key by key in any order.
 * - `contains` is a substring of a string ("" is in every string), or an element of an array
 *   equal to the operand as `eq` compares, of any kind: false, "", a number, an object. DynamoDB
 *   Local answers so, and dynalite is patched to (patches/dynalite+4.0.0+003+list-contains.patch).
 * - What the parser refuses never reaches here: a path no level of the schema holds, and an
 *   operand the field can never hold (docs/record-api.md, Filters).
 */

/**
 * The value at a parsed path. Paths name the stored item (a data field under DATA_ATTRIBUTE, a
 * system field at the top); a record as answered holds both at its top, where no data field may
 * take a system field's name.
 */
function valueAt(record: Record<string, unknown>, path: ReadonlyArray<string>): unknown {
  const segments = path[0] === DATA_ATTRIBUTE ? path.slice(1) : path;
  return segments.reduce<unknown>((value, segment) => (isJsonObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined), record);
}

const isNothing = (value: unknown) => value === undefined || value === null;

/** Sign of a - b when both are numbers or both strings; undefined when they are not comparable. */
function order(a: unknown, b: unknown): number | undefined {
  if (isExactNumber(a) && isExactNumber(b)) return compareDecimal(numberText(a), numberText(b));
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(utf8Order(a, b));
  return undefined;
}

function compare(node: Extract<FilterNode, { kind: 'compare' }>, value: unknown): boolean {
  const [a, b] = node.operands;
  const is = (test: (sign: number) => boolean, operand: unknown) => {
    const sign = order(value, operand);
    return sign !== undefined && test(sign);
  };
  switch (node.op) {
    case 'null':
      return isNothing(value);
    case 'eq':
      return sameValue(value, a);
    case 'ne':
      return !sameValue(value, a);
    case 'gt':
      return is((s) => s > 0, a);
    case 'gte':
      return is((s) => s >= 0, a);
    case 'lt':
      return is((s) => s < 0, a);
    case 'lte':
      return is((s) => s <= 0, a);
    case 'in':
      return node.operands.some((o) => sameValue(value, o));
    case 'nin':
      return !node.operands.some((o) => sameValue(value, o));
    case 'between':
      return is((s) => s >= 0, a) && is((s) => s <= 0, b);
    case 'begins_with':
      return typeof value === 'string' && value.startsWith(a as string);
    case 'contains':
      if (typeof value === 'string') return typeof a === 'string' && value.includes(a);
      return Array.isArray(value) && value.some((element) => sameValue(element, a));
  }
}

/** Whether a record (as the record API answers it) matches a parsed filter. */
export function evaluate(node: FilterNode, record: Record<string, unknown>): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((n) => evaluate(n, record));
    case 'or':
      return node.items.some((n) => evaluate(n, record));
    case 'not':
      return !evaluate(node.item, record);
    case 'compare':
      return compare(node, valueAt(record, node.path));
  }
}
