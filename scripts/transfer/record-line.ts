import { idSchema } from '../../shared/api/requests/common';
import { isJsonObject, parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';
import type { ErrorDetail } from '../../shared/models/details';
import type { KeptRecord } from '../../shared/store/transfer/put-kept';
import type { ApiRecord } from '../../shared/store/types';

/** One line of an export: the record as the record API answers it, numbers to the digit. */
export const recordLine = (record: ApiRecord): string => `${stringifyExactJson(record)}\n`;

const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/**
 * A line read back as the record it holds, or what is wrong with it. Its system fields are kept;
 * a line without any (written by another tool) is a new record (KeptRecord's `system`).
 */
export function keptFromLine(text: string): KeptRecord | ErrorDetail[] {
  let value: unknown;
  try {
    value = parseExactJson(text);
  } catch (error) {
    return [{ path: '', message: `not JSON: ${(error as Error).message}` }];
  }
  if (!isJsonObject(value)) return [{ path: '', message: 'not a JSON object' }];
  const { id, _created_at: createdAt, _updated_at: updatedAt, _version: version, ...data } = value;
  const problems: ErrorDetail[] = [];
  const idCheck = idSchema.safeParse(id);
  if (!idCheck.success) problems.push({ path: 'id', message: id === undefined ? 'required: a record keeps its id' : idCheck.error.issues[0].message });
  const fresh = createdAt === undefined && updatedAt === undefined && version === undefined;
  if (!fresh) {
    if (!isTime(createdAt)) problems.push({ path: '_created_at', message: 'must be a date-time' });
    if (!isTime(updatedAt)) problems.push({ path: '_updated_at', message: 'must be a date-time' });
    if (!Number.isSafeInteger(version) || (version as number) < 1) problems.push({ path: '_version', message: 'must be an integer from 1' });
  }
  if (problems.length > 0) return problems;
  return fresh
    ? { id: id as string, data }
    : { id: id as string, data, system: { createdAt: createdAt as string, updatedAt: updatedAt as string, version: version as number } };
}
