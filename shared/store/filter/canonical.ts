import { isJsonObject } from '../../json/exact-json';

/** The value with every object's keys in one order: an object operand equals another key by key, in any order. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}

/** `{"$eq": v}` means the bare `v` unless `v` is a list (bare, that is $in) or an object of operators. */
const foldsToBare = (operand: unknown): boolean => !Array.isArray(operand) && !(isJsonObject(operand) && Object.keys(operand).some((k) => k.startsWith('$')));

/** One field's condition: a bare value, a list ($in) or an operator object. */
function canonicalCondition(condition: unknown): unknown {
  if (!isJsonObject(condition) || !Object.keys(condition).some((k) => k.startsWith('$'))) return sortedKeys(condition);
  const keys = Object.keys(condition);
  if (keys.length === 1 && keys[0] === '$eq' && foldsToBare(condition.$eq)) return sortedKeys(condition.$eq);
  return Object.fromEntries(keys.sort().map((key) => [key, key === '$not' ? canonicalCondition(condition[key]) : sortedKeys(condition[key])]));
}

/**
 * One spelling of a filter's meaning, as the parser reads it (shared/store/filter/parse.ts):
 * keys at every level in one order (keys at one level are ANDed, and objects compare key by
 * key), and a field's `{"$eq": v}` written as the bare `v` where that means the same. Numbers
 * are already exact values, so `1.0` and `1` are one. Anything else stays as written: two
 * spellings this does not make one are two requests to a cursor. A value that is no filter is
 * returned as it is, for the parser to refuse.
 */
export function canonicalFilter(filter: unknown): unknown {
  if (!isJsonObject(filter)) return filter;
  return Object.fromEntries(
    Object.keys(filter)
      .sort()
      .map((key) => {
        const operand = filter[key];
        if (key === '$and' || key === '$or') return [key, Array.isArray(operand) ? operand.map(canonicalFilter) : operand];
        if (key === '$not') return [key, canonicalFilter(operand)];
        return [key, key.startsWith('$') ? operand : canonicalCondition(operand)];
      }),
  );
}
