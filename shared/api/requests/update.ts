import * as zm from '../../zod';
import { bulkGuard, jsonObject } from './common';

export const updateRequest = zm.strictObject({
  ...bulkGuard(),
  values: jsonObject.check(zm.describe('Fields to set; null removes an optional field')),
});
