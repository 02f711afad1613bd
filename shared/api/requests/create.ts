import * as zm from '../../zod';
import { LIMITS } from '../../limits';
import { idSchema, jsonObject } from './common';

export const createRequest = zm.strictObject({
  data: zm
    .union([jsonObject, zm.array(jsonObject).check(zm.minLength(1), zm.maxLength(LIMITS.maxCreateBatch))], {
      error: (issue) => {
        if (issue.input === undefined) return 'required';
        if (!Array.isArray(issue.input)) return `must be a JSON object (one record) or an array of 1 to ${LIMITS.maxCreateBatch} of them`;
        const count = issue.input.length;
        if (count === 0 || count > LIMITS.maxCreateBatch) return `holds ${count} records; one request creates 1 to ${LIMITS.maxCreateBatch}`;
        return 'every record in the array must be a JSON object';
      },
    })
    .check(zm.describe('One record, or an array of up to 100')),
  id: zm.optional(idSchema).check(zm.describe('Id for a single record; a time-ordered ULID otherwise')),
  ids: zm.optional(zm.array(idSchema)).check(zm.describe('Ids for a batch, one per record in data')),
});
