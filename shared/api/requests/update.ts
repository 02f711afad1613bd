import * as zm from '../../zod';
import { bulkGuard, jsonObject } from './common';

export const updateRequest = zm.strictObject({
  ...bulkGuard(),
  values: jsonObject.check(
    zm.describe(
      'Update operators ($set, $unset, $inc, $min, $max, $push, $addToSet, $pull, $setOnInsert) or fields to set whole; null removes an optional field',
    ),
  ),
  upsert: zm.optional(zm.boolean().check(zm.describe('Create the record when none matches; the filters must name its id by equality'))),
});
