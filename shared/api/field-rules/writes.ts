import { readOnlyFields } from '../../access/rules';
import { ApiError } from '../../errors';
import { isJsonObject } from '../../json/exact-json';
import type { Model } from '../../models/define';
import { pathText, type ErrorDetail } from '../../models/details';
import { checkAgainst } from '../../models/validate';
import { InvalidRecord } from '../../store/errors';
import { parseValues } from '../../store/operators/parse';
import { modelSeenWithout } from './seen';

/** A field a write names (a path's first segment), and where in the request it does. */
type Named = [field: string, at: PropertyKey[]];

const named = (key: string, at: PropertyKey[]): Named => [key.split('.')[0], [...at, key]];

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
 * 403 for a read-only field a caller names, wherever: only the service sets it. A field hidden
 * from the caller is not read-only to it but unknown, and is left to the unknown-field refusal.
 */
function refuseReadOnly(model: Model, hidden: ReadonlySet<string>, names: ReadonlyArray<Named>): void {
  const readOnly = readOnlyFields(model);
  const first = names.find(([field]) => readOnly.includes(field) && !hidden.has(field));
  if (!first) return;
  const [field, at] = first;
  const details = [{ path: pathText(at), message: `${field} is read-only: only the service sets it` }];
  throw new ApiError('forbidden', `${details[0].path}: ${details[0].message}`, { model: model.name, field, path: details[0].path, details });
}

const unknownProperty = (path: PropertyKey[], field: string): ErrorDetail => ({ path: pathText(path), message: `unknown property ${JSON.stringify(field)}` });

/**
 * Create data as the caller may send it: no read-only field (403), no hidden one. A record
 * naming a hidden field is refused as the model's strict schema (defineModel holds it) refuses a
 * key it lacks, beside every other problem of every record (422 validation_error).
 */
export async function checkDataNames(
  model: Model,
  hidden: ReadonlySet<string>,
  entries: ReadonlyArray<Record<string, unknown>>,
  pathOf: (i: number) => PropertyKey[],
) {
  if (Object.keys(model.fields).length === 0) return;
  refuseReadOnly(
    model,
    hidden,
    entries.flatMap((data, i) => Object.keys(data).map((key) => named(key, pathOf(i)))),
  );
  if (!entries.some((data) => Object.keys(data).some((field) => hidden.has(field)))) return;
  const details: ErrorDetail[] = [];
  for (const [i, data] of entries.entries()) {
    const seen = Object.fromEntries(Object.entries(data).filter(([field]) => !hidden.has(field)));
    // zod names the keys a strict schema lacks last, in the order sent: the hidden ones take their places among them.
    const lacked = Object.keys(data)
      .filter((field) => hidden.has(field) || !Object.hasOwn(model.schema.shape, field))
      .map((field) => unknownProperty([...pathOf(i), field], field));
    const { details: found } = await checkAgainst(model.schema, seen, pathOf(i));
    details.push(...found.filter((d) => !lacked.some((u) => u.path === d.path && u.message === d.message)), ...lacked);
  }
  throw new InvalidRecord(details);
}

/**
 * Update values as the caller may send them: no read-only field under any operator or path, nor
 * in the filters an upsert creates a record from (403). A hidden one is refused as a field the
 * model lacks: a path into it by the operators' own check (400), the field itself as the strict
 * schema refuses a key it lacks (422, at `values.<field>`), even when no record matches, where a
 * field the model lacks is refused by each matched record's check alone (docs/security.md).
 * `at` is where a transaction's operation sits: it moves the 403's path, and the store's errors
 * are moved by the transaction as it moves its own.
 */
export function checkValueNames(
  model: Model,
  hidden: ReadonlySet<string>,
  update: { values: Record<string, unknown>; filters?: unknown; upsert?: boolean },
  at: PropertyKey[] = [],
): void {
  if (Object.keys(model.fields).length === 0) return;
  const names = namesInValues(update.values);
  const seeds = update.upsert ? namesInSeed(update.filters, ['filters']) : [];
  refuseReadOnly(
    model,
    hidden,
    [...names, ...seeds].map(([field, path]) => [field, [...at, ...path]]),
  );
  const unknown = [...new Set(names.map(([field]) => field).filter((field) => hidden.has(field)))];
  if (unknown.length === 0) return;
  parseValues(modelSeenWithout(model, hidden), update.values, { upsert: update.upsert });
  throw new InvalidRecord(unknown.map((field) => unknownProperty(['values', field], field)));
}
