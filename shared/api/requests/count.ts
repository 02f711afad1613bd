import * as zm from '../../zod';
import { consistent, jsonObject } from './common';

export const countRequest = zm.strictObject({
  filters: zm.optional(jsonObject),
  consistent,
});
