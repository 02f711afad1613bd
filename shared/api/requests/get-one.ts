import * as zm from '../../zod';
import { consistent, fieldsSchema, jsonObject } from './common';

export const getOneRequest = zm.strictObject({
  filters: jsonObject,
  fields: zm.optional(fieldsSchema),
  consistent,
});
