import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inTime } from '../../../invocation';
import { isSystemField, type Model } from '../../../models/model';
import { checkAgainst } from '../../../models/validate';
import * as zm from '../../../zod';
import { db } from '../../client';
import { InvalidRecord, RecordExists } from '../../errors';
import { isConditionFailure, newWriteToken } from '../../write/write-token';
import type { Action, UpdateByIdAnswer, UpdateByIdRequest } from '../../types';
import { createRecords } from '../create/create';
import { setFieldsParams } from './params';

/**
 * The fields' values as the model takes them, checked as a record holding only those fields
 * (so nesting depth and unstorable keys count as in a whole record). Only for models whose
 * fields are valid one by one: a model with checks across fields (onebot_rule) or an indexed
 * field (whose index keys the write would leave stale) is the bulk update's, and asking for it
 * here is the caller's mistake.
 */
async function validValues(model: Model, values: Record<string, unknown>): Promise<Record<string, unknown>> {
  if ((model.schema._zod.def.checks ?? []).length > 0) throw new Error(`updateRecordById: model ${model.name} checks its fields together`);
  const shape = Object.fromEntries(
    Object.keys(values).map((field) => {
      if (isSystemField(field) || model.indexed.includes(field) || !Object.hasOwn(model.schema.shape, field)) {
        throw new Error(`updateRecordById: ${model.name}.${field} is not a plain field of the model`);
      }
      return [field, model.schema.shape[field]];
    }),
  );
  const result = await checkAgainst(zm.strictObject(shape), values, ['values']);
  if (!result.value) throw new InvalidRecord(result.details);
  return result.value as Record<string, unknown>;
}

async function setFields(model: Model, id: string, values: Record<string, unknown>): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(setFieldsParams(model, { id, values, writeToken: newWriteToken(), now: new Date().toISOString() })), inTime());
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The service's own write of some fields of one record, by id: one conditional UpdateItem that
 * sets them in place (no read, no filter, no retry loop: a field set is the same whatever the
 * record held), instead of the bulk update's consistent query, conditional write per version
 * and re-read. `orCreate`, when given, is the whole record to create when there is none yet; a
 * create that loses to a concurrent one sets the fields after all, so neither write is lost.
 * Returns what happened; 'missing' only without `orCreate`.
 */
export const updateRecordById: Action<UpdateByIdRequest, UpdateByIdAnswer> = async (model, { id, values, orCreate }) => {
  const valid = await validValues(model, values);
  if (await setFields(model, id, valid)) return 'updated';
  if (orCreate === undefined) return 'missing';
  try {
    await createRecords(model, { records: [{ id, data: orCreate }] }, { pathOf: () => ['data'] });
    return 'created';
  } catch (error) {
    if (!(error instanceof RecordExists)) throw error;
  }
  return (await setFields(model, id, valid)) ? 'updated' : 'missing';
};
