import { compareDecimal } from '../../shared/json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../shared/json/exact-json';
import { LIMITS } from '../../shared/limits';
import { DATA_ATTRIBUTE } from '../../shared/store/table';
import type { FilterNode } from '../../shared/store/filter/ast';
import { evaluate } from '../../shared/store/filter/evaluate';
import { toRecord } from '../../shared/store/read/projection';
import { sameValue } from '../../shared/store/operators/same-value';
import { utf8Order } from '../../shared/store/utf8-order';

/**
 * The record API's filters and orders, as plainly as possible, over stored items: the property
 * tests compare every engine's answers with it (test/integration/filter-model.test.ts,
 * test/support/record-model.ts).
 *
 * Which items a filter matches is shared/store/filter/evaluate.ts, the change feed's evaluator,
 * whose own oracle is the engines' FilterExpression (test/integration/filter-evaluate.test.ts):
 * the code under test here, the planner and ./compile.ts, shares nothing with it. The order
 * `list` answers in is written here alone.
 */

export type Item = Record<string, unknown>;

const valueAt = (item: Item, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, segment) => (isJsonObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined), item);

const isNothing = (value: unknown) => value === undefined || value === null;

// $eq compares as the store's $pull does: one definition of equal values, not a copy of it here.
export { sameValue };

/** Whether a stored item matches a parsed filter: as the change feed decides it on the record the item holds. */
export const matches = (node: FilterNode, item: Item): boolean => evaluate(node, toRecord(item));

/** Sign of a - b when both are numbers or both strings; 0 when they are not comparable. */
function order(a: unknown, b: unknown): number {
  if (isExactNumber(a) && isExactNumber(b)) return compareDecimal(numberText(a), numberText(b));
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(utf8Order(a, b));
  return 0;
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
  const sign = typeof x === 'string' ? utf8Order(orderedPrefix(x), orderedPrefix(y as string)) : order(x, y);
  return sign || byId;
}
