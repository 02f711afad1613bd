import { readOnlyFields } from '../../access/rules';
import { ApiError } from '../../errors';
import { isJsonObject } from '../../json/exact-json';
import type { Model } from '../../models/define';
import { pathText, type ErrorDetail } from '../../models/details';
import { checkAgainst } from '../../models/validate';
import { InvalidRecord } from '../../store/errors';
import { parseValues } from '../../store/operators/parse';
import * as zm from '../../zod';
import { modelSeenWithout } from './seen';

/** A field a write names, and where in the request it does. */
interface Named {
  field: string;
  at: PropertyKey[];
}

const namesInData = (data: Record<string, unknown>, at: PropertyKey[]): Named[] => Object.keys(data).map((field) => ({ field, at: [...at, field] }));

/** The fields update values name: each plain key, and each path of each operator, by its first segment. */
function namesInValues(values: Record<string, unknown>, at: PropertyKey[]): Named[] {
  return Object.entries(values).flatMap(([key, operand]): Named[] => {
    if (!key.startsWith('$')) return [{ field: key.split('.')[0], at: [...at, key] }];
    return isJsonObject(operand) ? Object.keys(operand).map((path) => ({ field: path.split('.')[0], at: [...at, key, path] })) : [];
  });
}

/**
 * 403 for a read-only field a caller names, wherever: only the service sets it. A field hidden
 * from the caller is not read-only to it but unknown, and is left to the unknown-field refusal.
 */
function refuseReadOnly(model: Model, hidden: ReadonlySet<string>, named: ReadonlyArray<Named>): void {
  const readOnly = readOnlyFields(model);
  const first = named.find((n) => readOnly.includes(n.field) && !hidden.has(n.field));
  if (!first) return;
  const path = pathText(first.at);
  const message = `${first.field} is read-only: only the service sets it`;
  throw new ApiError('forbidden', `${path}: ${message}; leave it out`, { model: model.name, field: first.field, details: [{ path, message }] });
}

/**
 * Create data as the caller may send it: no read-only field (403), no hidden one. A record
 * naming a hidden field is checked as the store checks it, against the schema without the
 * hidden fields, which is strict (defineModel holds it), so that the field is refused as any key
 * the model lacks, beside every other problem of every record (422 validation_error).
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
    entries.flatMap((data, i) => namesInData(data, pathOf(i))),
  );
  if (!entries.some((data) => Object.keys(data).some((field) => hidden.has(field)))) return;
  const seen = zm.omit(model.schema as zm.ZodMiniObject, Object.fromEntries([...hidden].map((field) => [field, true as const])));
  const details: ErrorDetail[] = [];
  for (const [i, data] of entries.entries()) details.push(...(await checkAgainst(seen, data, pathOf(i))).details);
  throw new InvalidRecord(details);
}

/** The fields an upsert's filters may seed a created record with: its equalities, at the top and under $and (shared/store/actions/update/upsert.ts). */
function namesInSeed(filters: unknown, at: PropertyKey[]): Named[] {
  if (!isJsonObject(filters)) return [];
  return Object.entries(filters).flatMap(([key, operand]): Named[] => {
    if (key === '$and' && Array.isArray(operand)) return operand.flatMap((item, i) => namesInSeed(item, [...at, key, i]));
    return key.startsWith('$') ? [] : [{ field: key.split('.')[0], at: [...at, key] }];
  });
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
  const named = namesInValues(update.values, ['values']);
  const seeds = update.upsert ? namesInSeed(update.filters, ['filters']) : [];
  refuseReadOnly(
    model,
    hidden,
    [...named, ...seeds].map((n) => ({ ...n, at: [...at, ...n.at] })),
  );
  const unknown = [...new Set(named.filter((n) => hidden.has(n.field)).map((n) => n.field))];
  if (unknown.length === 0) return;
  parseValues(modelSeenWithout(model, hidden), update.values, { upsert: update.upsert });
  throw new InvalidRecord(unknown.map((field) => ({ path: `values.${field}`, message: `unknown property ${JSON.stringify(field)}` })));
}
