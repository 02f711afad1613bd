import { readOnlyFields } from '../../access/rules';
import { ApiError } from '../../errors';
import type { Model } from '../../models/model';
import { pathText, type ErrorDetail } from '../../models/details';
import { checkAgainst } from '../../models/validate';
import { InvalidRecord } from '../../store/errors';
import { reached } from '../../store/reach';
import type { Reach } from '../../store/types';
import { stampedFor } from '../../store/write/row-rules';

/** A field a write names (a path's first segment), and where in the request it does. */
export type Named = [field: string, at: PropertyKey[]];

export const named = (key: string, at: PropertyKey[]): Named => [key.split('.')[0], [...at, key]];

/**
 * 403 for a read-only field a caller names, wherever: only the service sets it. A field hidden
 * from the caller is not read-only to it but unknown, and is left to the unknown-field refusal.
 */
export function refuseReadOnly(model: Model, hidden: ReadonlySet<string>, names: ReadonlyArray<Named>): void {
  const readOnly = readOnlyFields(model);
  const first = names.find(([field]) => readOnly.includes(field) && !hidden.has(field));
  if (!first) return;
  const [field, at] = first;
  const details = [{ path: pathText(at), message: `${field} is read-only: only the service sets it` }];
  throw new ApiError('forbidden', `${details[0].path}: ${details[0].message}`, { model: model.name, field, path: details[0].path, details });
}

export const unknownProperty = (path: PropertyKey[], field: string): ErrorDetail => ({
  path: pathText(path),
  message: `unknown property ${JSON.stringify(field)}`,
});

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
  reach: Reach | undefined,
) {
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
    // As the store checks it: with the owner and tenant fields it fills in from the caller.
    const { details: found } = await checkAgainst(model.schema, await stampedFor(reached(model, reach), seen, pathOf(i)), pathOf(i));
    details.push(...found.filter((d) => !lacked.some((u) => u.path === d.path && u.message === d.message)), ...lacked);
  }
  throw new InvalidRecord(details);
}
