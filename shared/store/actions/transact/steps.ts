import type { Model } from '../../../models/model';
import { pathText, type ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import { InvalidRecord, InvalidValues, TransactionRefused } from '../../errors';
import type { FilterNode } from '../../filter/ast';
import { expiryClauses } from '../../expiry/ttl';
import { ExpressionBuilder } from '../../filter/expression';
import { parseFilter } from '../../filter/parse';
import { reaches, withinReach } from '../../filter/reach';
import { indexAttributes } from '../../keys';
import { applyChanges } from '../../operators/apply';
import type { Changes } from '../../operators/changes';
import { compileChanges } from '../../operators/compile';
import { schemaRecorded } from '../../layout/layout';
import { parseValues } from '../../operators/parse';
import { DATA_ATTRIBUTE } from '../../table';
import type { Item } from '../../read/query';
import type { TransactOperation } from '../../types';
import { checkItemSize } from '../../write/item-size';
import { currentItem, unchangedSince } from '../../write/write-token';
import { updatedItem } from '../update/merge';
import { checkRowChangesFor, stampedFor } from '../../write/row-rules';
import { storedItem } from '../create/item';
import type { TransactStep } from './params';

/** What a create needs besides its operation: the stamp of the item it makes. */
export interface CreateStamp {
  now: string;
  writeToken: string;
  keyRuns?: ReadonlyArray<string>;
}

type Checked = { step?: TransactStep; details: ErrorDetail[] };

/** The problems the operators (shared/store/operators/) report at `values...`, at the operation's own path in the request. */
export async function underOperation<T>(at: PropertyKey[], work: () => Promise<T>): Promise<T> {
  const moved = (details: ReadonlyArray<ErrorDetail>) => details.map((d) => ({ ...d, path: `${pathText(at)}.${d.path}` }));
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidRecord) throw new InvalidRecord(moved(error.details));
    if (error instanceof InvalidValues) throw new InvalidValues(`${pathText(at)}: ${error.message}`, moved(error.details));
    throw error;
  }
}

/**
 * The record's whole new data, for changes no one UpdateItem can state with its model's checks
 * (shared/store/operators/compile.ts): read, changed, validated as a whole record, and written
 * only if nothing was written since it was read, with its index keys and its expiry.
 */
async function readClauses(model: Model, id: string, changes: Changes, filter: FilterNode, at: PropertyKey[]): Promise<Checked> {
  const read = await currentItem(model, id);
  if (!read || !reaches(model, read)) throw new TransactionRefused(Number(at[1]), 'missing', model.name, id);
  const changed = await underOperation(at, async () => applyChanges(read[DATA_ATTRIBUTE] as Record<string, unknown>, changes));
  const result = await checkAgainst(model.schema, changed, [...at, 'values']);
  if (!result.value) return { details: result.details };
  const data = result.value as Record<string, unknown>;
  checkItemSize(updatedItem(model, read, data), id);
  const x = new ExpressionBuilder();
  const expiry = expiryClauses(model, data, x);
  const set = [`${x.name(DATA_ATTRIBUTE)} = ${x.value(data)}`, ...expiry.set];
  for (const [attribute, value] of Object.entries(indexAttributes(model, id, data))) set.push(`${x.name(attribute)} = ${x.value(value)}`);
  return {
    details: [],
    step: { op: 'update', model, id, clauses: { x, set, remove: expiry.remove, condition: unchangedSince(x, read) }, filter, changes, read },
  };
}

/**
 * An update's values as the operators read them (shared/store/operators/): one atomic UpdateItem
 * with the condition under which the model takes the result, where that can be stated; else the
 * record read, changed and validated first (readClauses).
 */
async function checkUpdate(model: Model, op: Extract<TransactOperation, { op: 'update' }>, at: PropertyKey[]): Promise<Checked> {
  const filter = withinReach(model, parseFilter(model, op.filters ?? {}, [...at, 'filters']));
  const changes = await underOperation(at, async () => parseValues(model, op.values));
  await checkRowChangesFor(model, changes, [...at, 'values']);
  const x = new ExpressionBuilder();
  const compiled = await underOperation(at, () => compileChanges(changes, x, model));
  if (!compiled || !(await schemaRecorded(model))) return readClauses(model, op.id, changes, filter, at);
  return { details: [], step: { op: 'update', model, id: op.id, clauses: { x, ...compiled }, filter, changes } };
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
      const result = await checkAgainst(model.schema, await stampedFor(model, op.data, [...at, 'data']), [...at, 'data']);
      if (!result.value) return { details: result.details };
      const item: Item = storedItem(model, { id: op.id, data: result.value as Record<string, unknown> }, stamp.now, stamp.writeToken, stamp.keyRuns);
      checkItemSize(item, op.id);
      return { details: [], step: { op: 'create', model, item } };
    }
    case 'update':
      return checkUpdate(model, op, at);
    default:
      return { details: [], step: { op: op.op, model, id: op.id, filter: withinReach(model, parseFilter(model, op.filters ?? {}, [...at, 'filters'])) } };
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
