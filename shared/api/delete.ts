import type * as z from 'zod';
import { hiddenFields } from '../access/rules';
import { deleteRecords } from '../store/actions/delete/delete';
import './cursor-key';
import { refuseHiddenNames } from './field-rules/load-reads';
import { ifMatchOf } from './preconditions';
import { recordOperation } from './record-operation';
import type { deleteAnswerSchema } from './responses';
import { deleteRequest } from './requests/delete';

export const deleteOperation = recordOperation(deleteRequest, async (model, body, options, headers, caller): Promise<z.infer<typeof deleteAnswerSchema>> => {
  await refuseHiddenNames(model, hiddenFields(model, caller), body.filters);
  return deleteRecords(model, body, { ...options, ifMatch: ifMatchOf(headers) });
});
