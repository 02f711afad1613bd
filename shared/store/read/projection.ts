import { SYSTEM_FIELDS, type Model } from '../../models/model';
import { UnknownField } from '../errors';
import type { ApiRecord } from '../types';
import type { Item } from './query';
import { CREATED_ATTRIBUTE, DATA_ATTRIBUTE, UPDATED_ATTRIBUTE, VERSION_ATTRIBUTE } from '../table';

/** The record an item holds, with only id and `fields` when they are given. */
export function toRecord(item: Item, fields?: ReadonlyArray<string>): ApiRecord {
  const full: ApiRecord = {
    id: item.id as string,
    ...(item[DATA_ATTRIBUTE] as Record<string, unknown>),
    [CREATED_ATTRIBUTE]: item[CREATED_ATTRIBUTE],
    [UPDATED_ATTRIBUTE]: item[UPDATED_ATTRIBUTE],
    [VERSION_ATTRIBUTE]: item[VERSION_ATTRIBUTE],
  };
  if (!fields) return full;
  const picked: ApiRecord = { id: full.id };
  for (const f of fields) if (Object.hasOwn(full, f)) picked[f] = full[f];
  return picked;
}

/** Refuses a `fields` list naming a field the model does not have, before anything is read. */
export function checkFields(model: Model, fields: ReadonlyArray<string> | undefined): void {
  const known = new Set([...Object.keys(SYSTEM_FIELDS), ...Object.keys(model.storedSchema.properties)]);
  const unknown = (fields ?? []).find((f) => !known.has(f));
  if (unknown === undefined) return;
  // Paths reach into objects in filters; a projection of part of a field is not offered.
  const whole = unknown.split('.')[0];
  const message =
    unknown.includes('.') && known.has(whole) ? `fields names whole fields: ask for "${whole}" (dotted paths are for filters)` : `unknown field ${unknown}`;
  throw new UnknownField(model.name, unknown, { path: 'fields', message }, [...known]);
}
