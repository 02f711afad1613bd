import { compareDecimal } from '../../shared/json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../shared/json/exact-json';
import { LIMITS } from '../../shared/limits';
import { DATA_ATTRIBUTE } from '../../shared/store/table';
import type { FilterNode } from '../../shared/store/filter/ast';
import { sameValue } from '../../shared/store/operators/same-value';
import { utf8Order } from '../../shared/store/utf8-order';

/**
 * The filter language's meaning, written as plainly as possible: an in-memory evaluator over
 * stored items. The service never runs it; the property tests compare every engine's answers
 * with it (test/integration/filter-model.test.ts), so this file is the specification you can run.
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

export type Item = Record<string, unknown>;

const valueAt = (item: Item, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, segment) => (isJsonObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined), item);

const isNothing = (value: unknown) => value === undefined || value === null;

// $eq compares as the store's $pull does: one definition of equal values, not a copy of it here.
export { sameValue };

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

/** Whether a stored item matches a parsed filter. */
export function matches(node: FilterNode, item: Item): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((n) => matches(n, item));
    case 'or':
      return node.items.some((n) => matches(n, item));
    case 'not':
      return !matches(node.item, item);
    case 'compare':
      return compare(node, valueAt(item, node.path));
  }
}

/**
 * Bytes of an indexed string that take part in ordering: the longest run of whole characters
 * within LIMITS.maxIndexedStringBytes UTF-8 bytes (\0 and \1 count two, being escaped in the
 * key). Values that share it are ordered by id.
 */
export function orderedPrefix(value: string, maxBytes = LIMITS.maxIndexedStringBytes): string {
  let bytes = 0;
  let out = '';
  for (const char of value) {
    bytes += char === '\u0000' || char === '\u0001' ? 2 : Buffer.byteLength(char, 'utf8');
    if (bytes > maxBytes) break;
    out += char;
  }
  return out;
}

/** Rank of a value's kind when ordering by a field: missing first, then strings, then numbers. */
const kindRank = (value: unknown) => (isNothing(value) ? 0 : typeof value === 'string' ? 1 : 2);

/**
 * The order `list` answers in for `order_by` (a field, or `id`), ascending; ties by id.
 * Descending is this order reversed, so its ties are by descending id.
 */
export function compareForOrder(field: string, a: Item, b: Item): number {
  const byId = utf8Order(a.id as string, b.id as string);
  if (field === 'id') return byId;
  const [x, y] = [valueAt(a, [DATA_ATTRIBUTE, field]), valueAt(b, [DATA_ATTRIBUTE, field])];
  const rank = kindRank(x) - kindRank(y);
  if (rank !== 0) return rank;
  const sign = typeof x === 'string' ? utf8Order(orderedPrefix(x), orderedPrefix(y as string)) : (order(x, y) ?? 0);
  return sign || byId;
}
