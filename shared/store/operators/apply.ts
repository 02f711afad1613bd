import { addDecimal, compareDecimal } from '../../json/decimal';
import { isExactNumber, isJsonObject, numberText, toExactNumber } from '../../json/exact-json';
import { InvalidRecord } from '../errors';
import { utf8Order } from '../utf8-order';
import { pathName, type Change, type Changes } from './changes';
import { sameValue } from './same-value';

type Data = Record<string, unknown>;

/** The stored value does not have the kind the operator needs: the record cannot take this update. */
const mismatch = (change: Change, held: string): InvalidRecord =>
  new InvalidRecord([{ path: `values.${pathName(change.path)}`, message: `${pathName(change.path)} holds ${held}, which ${change.op} cannot change` }]);

const kindName = (value: unknown): string =>
  Array.isArray(value) ? 'an array' : isExactNumber(value) ? 'a number' : value === null ? 'null' : `a ${typeof value}`;

/** The object that holds the change's last segment, copied on the way down so the input is never changed; undefined when a removal finds nothing there. */
function parentOf(data: Data, change: Change, create: boolean): Data | undefined {
  let object = data;
  for (const [i, segment] of change.path.slice(0, -1).entries()) {
    const inner = Object.hasOwn(object, segment) ? object[segment] : undefined;
    if (inner === undefined) {
      if (!create) return undefined;
      object[segment] = {};
    } else if (!isJsonObject(inner)) {
      throw mismatch({ ...change, path: change.path.slice(0, i + 1) }, kindName(inner));
    } else {
      object[segment] = { ...inner };
    }
    object = object[segment] as Data;
  }
  return object;
}

function orderOf(a: unknown, b: unknown): number | undefined {
  if (isExactNumber(a) && isExactNumber(b)) return compareDecimal(numberText(a), numberText(b));
  if (typeof a === 'string' && typeof b === 'string') return utf8Order(a, b);
  return undefined;
}

/** The value the change leaves at its path, given what is there (undefined: nothing); undefined removes. */
function changed(change: Change, held: unknown): unknown {
  switch (change.op) {
    case 'set':
    case 'setOnInsert':
      return change.value;
    case 'unset':
      return undefined;
    case 'inc':
      if (held === undefined) return toExactNumber(numberText(change.by));
      if (!isExactNumber(held)) throw mismatch(change, kindName(held));
      return toExactNumber(addDecimal(numberText(held), numberText(change.by)));
    case 'min':
    case 'max': {
      if (held === undefined) return change.value;
      const order = orderOf(change.value, held);
      if (order === undefined) throw mismatch(change, kindName(held));
      return (change.op === 'min' ? order < 0 : order > 0) ? change.value : held;
    }
    case 'push':
    case 'addToSet':
    case 'pull': {
      if (held !== undefined && !Array.isArray(held)) throw mismatch(change, kindName(held));
      const elements = (held ?? []) as unknown[];
      if (change.op === 'pull') return held === undefined ? undefined : elements.filter((e) => !sameValue(e, change.value));
      if (change.op === 'push') return [...elements, ...change.each];
      const result = [...elements];
      for (const e of change.each) if (!result.some((r) => sameValue(r, e))) result.push(e);
      return result;
    }
  }
}

/**
 * A record's data with the changes applied, in exact arithmetic (shared/json/decimal.ts), as
 * MongoDB applies them: a missing path starts from nothing ($inc from 0, $push from []), and
 * $setOnInsert counts only when `inserting`. The input is not changed. Throws InvalidRecord
 * when the stored value has a kind the operator cannot change (a union field holding a string).
 */
export function applyChanges(data: Data, changes: Changes, { inserting = false }: { inserting?: boolean } = {}): Data {
  const result: Data = { ...data };
  for (const change of changes.list) {
    if (change.op === 'setOnInsert' && !inserting) continue;
    const removing = change.op === 'unset' || change.op === 'pull';
    const parent = parentOf(result, change, !removing);
    if (parent === undefined) continue;
    const last = change.path[change.path.length - 1];
    const value = changed(change, Object.hasOwn(parent, last) ? parent[last] : undefined);
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return result;
}
