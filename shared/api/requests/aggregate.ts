import * as zm from '../../zod';
import { LIMITS } from '../../limits';
import { consistent, cursor, jsonObject } from './common';

export const aggregateRequest = zm.strictObject({
  name: zm.string().check(zm.minLength(1, 'must not be empty'), zm.describe("The aggregate's name, as the model declares it (GET /api/db/models lists them)")),
  filters: zm
    .optional(jsonObject)
    .check(zm.describe('Equality on group fields: {"field": value} or {"field": {"$eq": value}}; only the groups holding these values')),
  limit: zm.optional(zm.int().check(zm.gte(1), zm.lte(LIMITS.maxPageSize))).check(zm.describe(`Groups per page, default ${LIMITS.defaultPageSize}`)),
  cursor: cursor('next_cursor of the previous page'),
  consistent,
});
