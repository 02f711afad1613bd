import { isSystemField, type Model } from '../../../models/define';
import { pathText, type ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import * as zm from '../../../zod';
import { InvalidRecord, InvalidValues } from '../../errors';
import { parseFilter } from '../../filter/parse';
import type { Item } from '../../read/query';
import type { TransactOperation } from '../../types';
import { checkItemSize } from '../../write/item-size';
import { storedItem } from '../create/item';
import type { TransactStep } from './params';

/** What a create needs besides its operation: the stamp of the item it makes. */
export interface CreateStamp {
  now: string;
  writeToken: string;
  keyRuns?: ReadonlyArray<string>;
}

type Checked = { step?: TransactStep; details: ErrorDetail[] };

/**
 * An update's values as the model takes them, field by field: a set value is checked as the
 * field's, a null removes a field the model lets a record go without. A model that checks its
 * fields together cannot be told from the values alone, so its updates are refused here.
 */
async function checkUpdate(model: Model, op: Extract<TransactOperation, { op: 'update' }>, at: PropertyKey[]): Promise<Checked> {
  if ((model.schema._zod.def.checks ?? []).length > 0) {
    const message = `model ${model.name} checks its fields together, which a transaction's update cannot do without reading the record; use update`;
    throw new InvalidValues(`${pathText(at)}: ${message}`, [{ path: pathText(at), message }]);
  }
  const set = Object.fromEntries(Object.entries(op.values).filter(([, value]) => value !== null));
  const remove = Object.keys(op.values).filter((field) => op.values[field] === null && !isSystemField(field));
  const shape = model.schema.shape;
  const result = await checkAgainst(zm.partial(zm.strictObject(shape)), set, [...at, 'values']);
  const details = [...result.details];
  for (const field of remove) {
    if (Object.hasOwn(shape, field) && !zm.safeParse(zm.strictObject({ [field]: shape[field] }), {}).success)
      details.push({ path: pathText([...at, 'values', field]), message: 'required: it cannot be removed' });
  }
  return {
    details,
    step: {
      op: 'update',
      model,
      id: op.id,
      set: (result.value ?? {}) as Record<string, unknown>,
      remove,
      filter: parseFilter(model, op.filters ?? {}, [...at, 'filters']),
    },
  };
}

/**
 * The step of the `index`-th operation, or every problem its model finds in it, each with its
 * path in the request. Filters are read here too (an unreadable one throws InvalidFilter naming
 * its path), so nothing is sent before every operation is known to be sendable.
 */
export async function checkedStep(model: Model, op: TransactOperation, index: number, stamp: CreateStamp): Promise<Checked> {
  const at = ['operations', index];
  switch (op.op) {
    case 'create': {
      const result = await checkAgainst(model.schema, op.data, [...at, 'data']);
      if (!result.value) return { details: result.details };
      const item: Item = storedItem(model, { id: op.id, data: result.value as Record<string, unknown> }, stamp.now, stamp.writeToken, stamp.keyRuns);
      checkItemSize(item, op.id);
      return { details: [], step: { op: 'create', model, item } };
    }
    case 'update':
      return checkUpdate(model, op, at);
    default:
      return { details: [], step: { op: op.op, model, id: op.id, filter: parseFilter(model, op.filters ?? {}, [...at, 'filters']) } };
  }
}

/** Every step, or one InvalidRecord listing every problem of every operation (nothing is sent). */
export async function checkedSteps(checks: ReadonlyArray<Promise<Checked>>): Promise<TransactStep[]> {
  const checked = await Promise.all(checks);
  const details = checked.flatMap((c) => c.details);
  if (details.length > 0) throw new InvalidRecord(details);
  return checked.map((c) => c.step!);
}

/** The first operation that names a record an earlier one names: DynamoDB takes one action per item. */
export function refuseRepeatedRecords(operations: ReadonlyArray<{ model: string; id: string }>): void {
  const seen = new Map<string, number>();
  for (const [i, { model, id }] of operations.entries()) {
    const key = `${model}\u0000${id}`;
    const first = seen.get(key);
    if (first !== undefined) {
      const message = `names the ${model} record ${id}, as operations.${first} does; one transaction acts on a record once`;
      throw new InvalidValues(`operations.${i} ${message}`, [{ path: `operations.${i}`, message }]);
    }
    seen.set(key, i);
  }
}
