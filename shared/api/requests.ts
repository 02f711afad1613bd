import * as z from 'zod';
import { isExactNumber, isJsonObject } from '../json/exact-json';
import { LIMITS } from '../limits';

/**
 * The request bodies of the record operations. Filters and record data stay the caller's own
 * objects (zod only checks that they are objects), so exact numbers and keys such as
 * "__proto__" reach the filter parser and the model validation untouched.
 */
export const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, {
  error: (issue) => (issue.input === undefined ? 'required' : 'must be a JSON object'),
});

/** What a JSON value is, in JSON's words: a big number is a number, not the SDK's NumberValue. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isExactNumber(value)) return 'number';
  return typeof value;
}

/** Messages of a request body's type errors: "required" for a missing property, JSON type names otherwise. */
export const requestErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_type') return undefined;
  return issue.input === undefined ? 'required' : `expected ${issue.expected}, received ${jsonTypeOf(issue.input)}`;
};

export const idSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(LIMITS.maxIdLength)
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
  .describe('Record id; any text without control characters');

export const fieldsSchema = z.array(z.string()).min(1).max(100).describe('Return only these fields (id is always returned)');
const consistent = z.boolean().optional().describe('Strongly consistent read (base table only; costs twice as much)');

export const createRequest = z.strictObject({
  data: z.union([jsonObject, z.array(jsonObject).min(1).max(LIMITS.maxCreateBatch)], {
    error: (issue) => {
      if (issue.input === undefined) return 'required';
      if (!Array.isArray(issue.input)) return `must be a JSON object (one record) or an array of 1 to ${LIMITS.maxCreateBatch} of them`;
      const count = issue.input.length;
      if (count === 0 || count > LIMITS.maxCreateBatch) return `holds ${count} records; one request creates 1 to ${LIMITS.maxCreateBatch}`;
      return 'every record in the array must be a JSON object';
    },
  }).describe('One record, or an array of up to 100'),
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
