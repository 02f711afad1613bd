import type * as z from 'zod';
import { hiddenFields } from '../access/rules';
import { updateRecords } from '../store/actions/update/update';
import './cursor-key';
import { refuseHiddenNames } from './field-rules/reads';
import { checkValueNames } from './field-rules/writes';
import { ifMatchOf } from './preconditions';
import { recordOperation } from './record-operation';
import type { updateAnswerSchema } from './responses';
import { updateRequest } from './requests/update';

export const updateOperation = recordOperation(updateRequest, (model, body, options, headers, caller): Promise<z.infer<typeof updateAnswerSchema>> => {
  // Values first, then filters, as the store reads them.
  const hidden = hiddenFields(model, caller);
  checkValueNames(model, hidden, body);
  refuseHiddenNames(model, hidden, body.filters);
  return updateRecords(model, body, { ...options, ifMatch: ifMatchOf(headers) });
});
