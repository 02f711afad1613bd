import { isJsonObject } from '../../json/exact-json';
import { isSystemField, type Model } from '../../models/model';
import { InvalidRecord } from '../../store/errors';
import { parseValues } from '../../store/operators/parse';
import { modelSeenWithout } from './seen';
import { named, refuseReadOnly, unknownProperty, type Named } from './writes';

/** The fields update values name: each plain key, and each path of each operator. */
const namesInValues = (values: Record<string, unknown>): Named[] =>
  Object.entries(values).flatMap(([key, operand]) =>
    !key.startsWith('$') ? [named(key, ['values'])] : isJsonObject(operand) ? Object.keys(operand).map((path) => named(path, ['values', key])) : [],
  );

/** The fields an upsert's filters seed a created record with: its equalities, at the top and under $and (shared/store/actions/update/upsert.ts). */
const namesInSeed = (filters: unknown, at: PropertyKey[]): Named[] =>
  isJsonObject(filters)
    ? Object.entries(filters).flatMap(([key, operand]) =>
        key === '$and' && Array.isArray(operand)
          ? operand.flatMap((item, i) => namesInSeed(item, [...at, key, i]))
          : key.startsWith('$')
            ? []
            : [named(key, at)],
      )
    : [];

/**
 * Update values as the caller may send them: no read-only field under any operator or path, nor
 * in the filters an upsert creates a record from (403). A hidden one is refused as a field the
 * model lacks: a path into it by the operators' own check (400), the field itself as the strict
 * schema refuses a key it lacks (422, at `values.<field>`), even when no record matches, and so,
 * on a model that hides a field, is a field the model lacks, which would otherwise be refused
 * only by a matched record's check (docs/security.md).
 * `at` is where a transaction's operation sits: it moves the 403's path, and the store's errors
 * are moved by the transaction as it moves its own.
 */
export function checkValueNames(
  model: Model,
  hidden: ReadonlySet<string>,
  update: { values: Record<string, unknown>; filters?: unknown; upsert?: boolean },
  at: PropertyKey[] = [],
): void {
  const names = namesInValues(update.values);
  const seeds = update.upsert ? namesInSeed(update.filters, ['filters']) : [];
  refuseReadOnly(
    model,
    hidden,
    [...names, ...seeds].map(([field, path]) => [field, [...at, ...path]]),
  );
  // A field the model lacks is refused here too, with the very answer a hidden one gets: were it
  // left to each matched record's check, an update matching nothing would tell the two apart.
  // Only a model that hides a field has one to give away (and is strict, by its declaration).
  const hides = Object.values(model.fields).some((rule) => rule.visibleTo !== undefined);
  const lacks = (field: string) => hides && !Object.hasOwn(model.schema.shape, field) && !isSystemField(field);
  const unknown = [...new Set(names.map(([field]) => field).filter((field) => hidden.has(field) || lacks(field)))];
  if (unknown.length === 0) return;
  parseValues(modelSeenWithout(model, hidden), update.values, { upsert: update.upsert });
  throw new InvalidRecord(unknown.map((field) => unknownProperty(['values', field], field)));
}
