import * as zm from '../../zod';
import { AWS_LIMITS } from '../../limits';
import { idSchema, jsonObject } from './common';

const model = zm.string().check(zm.minLength(1), zm.describe('The model the operation acts on'));
const filters = (description: string) => zm.optional(jsonObject).check(zm.describe(description));

/** One operation of a transaction; several may name several models, never one record twice. */
const operationSchema = zm.discriminatedUnion('op', [
  zm.strictObject({
    op: zm.literal('create'),
    model,
    id: zm.optional(idSchema).check(zm.describe('A time-ordered ULID when not given')),
    data: jsonObject.check(zm.describe('The record, valid for its model')),
  }),
  zm.strictObject({
    op: zm.literal('update'),
    model,
    id: idSchema,
    values: jsonObject.check(zm.describe('Fields to set, as in update; null removes an optional field')),
    filters: filters('The record must also match these, or nothing of the transaction is written'),
  }),
  zm.strictObject({
    op: zm.literal('delete'),
    model,
    id: idSchema,
    filters: filters('The record must also match these, or nothing of the transaction is written'),
  }),
  zm.strictObject({
    op: zm.literal('check'),
    model,
    id: idSchema,
    filters: jsonObject.check(zm.describe('The record must exist and match these ({} for "exists"), or nothing of the transaction is written')),
  }),
]);

export const transactionRequest = zm.strictObject({
  operations: zm
    .array(operationSchema)
    .check(
      zm.minLength(1, 'holds no operation; a transaction takes 1 to 100'),
      zm.maxLength(AWS_LIMITS.transactionActions, `holds more than ${AWS_LIMITS.transactionActions} operations, DynamoDB's limit for one transaction`),
      zm.describe(`1 to ${AWS_LIMITS.transactionActions} operations, applied all together or not at all`),
    ),
});
