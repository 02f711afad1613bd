import * as z from 'zod';
import { isJsonObject } from '../json/exact-json';
import { LIMITS } from '../limits';

/**
 * The request bodies of the record operations. Filters and record data stay the caller's own
 * objects (zod only checks that they are objects), so exact numbers and keys such as
 * "__proto__" reach the filter parser and the model validation untouched.
 */
export const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, { message: 'must be a JSON object' });

export const idSchema = z
  .string()
  .min(1)
  .max(LIMITS.maxIdLength)
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
  .describe('Record id; any text without control characters');

export const fieldsSchema = z.array(z.string()).min(1).max(100).describe('Return only these fields (id is always returned)');
const consistent = z.boolean().optional().describe('Strongly consistent read (base table only; costs twice as much)');

export const createRequest = z.strictObject({
  data: z.union([jsonObject, z.array(jsonObject).min(1).max(LIMITS.maxCreateBatch)]).describe('One record, or an array of up to 100'),
  id: idSchema.optional().describe('Id for a single record; a time-ordered ULID otherwise'),
  ids: z.array(idSchema).optional().describe('Ids for a batch, one per record in data'),
});

export const getOneRequest = z.strictObject({
  filters: jsonObject,
  fields: fieldsSchema.optional(),
  consistent,
});

export const listRequest = z.strictObject({
  filters: jsonObject.optional(),
  order_by: z.union([z.string(), z.array(z.string()).max(1)]).optional().describe('"field" or "-field"; id or an indexed field'),
  limit: z.int().min(1).max(LIMITS.maxPageSize).optional().describe(`Page size, default ${LIMITS.defaultPageSize}`),
  cursor: z.string().max(8192).optional().describe('next_cursor of the previous page'),
  fields: fieldsSchema.optional(),
  consistent,
});

export const countRequest = z.strictObject({
  filters: jsonObject.optional(),
  consistent,
});

const bulkGuard = {
  filters: jsonObject,
  allow_all: z.boolean().optional().describe('Required to run with an empty filter'),
  max_affected: z.int().min(0).max(LIMITS.maxAffected).optional().describe('Refuse the whole operation (409) if more records match'),
  cursor: z.string().max(8192).optional().describe('next_cursor of a call that stopped early (complete: false): goes on after the last record it reached'),
};

export const updateRequest = z.strictObject({
  ...bulkGuard,
  values: jsonObject.describe('Fields to set; null removes an optional field'),
});

export const deleteRequest = z.strictObject(bulkGuard);
