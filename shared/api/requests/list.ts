import * as zm from '../../zod';
import { LIMITS } from '../../limits';
import { consistent, cursor, fieldsSchema, jsonObject } from './common';

export const listRequest = zm.strictObject({
  filters: zm.optional(jsonObject),
  order_by: zm
    .optional(zm.union([zm.string(), zm.array(zm.string()).check(zm.maxLength(1))]))
    .check(zm.describe('"field" or "-field"; id or an indexed field')),
  limit: zm.optional(zm.int().check(zm.gte(1), zm.lte(LIMITS.maxPageSize))).check(zm.describe(`Page size, default ${LIMITS.defaultPageSize}`)),
  cursor: cursor('next_cursor of the previous page'),
  fields: zm.optional(fieldsSchema),
  consistent,
});
