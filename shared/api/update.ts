import type * as z from 'zod';
import { hiddenFields } from '../access/rules';
import { updateRecords } from '../store/actions/update/update';
import './cursor-key';
import { checkValueNames } from './field-rules/load-values';
import { refuseHiddenNames } from './field-rules/load-reads';
import { ifMatchOf } from './preconditions';
import { recordOperation } from './record-operation';
import type { updateAnswerSchema } from './responses';
import { updateRequest } from './requests/update';

export const updateOperation = recordOperation(updateRequest, async (model, body, options, headers, caller): Promise<z.infer<typeof updateAnswerSchema>> => {
  // Values first, then filters, as the store reads them.
  const hidden = hiddenFields(model, caller);
  await checkValueNames(model, hidden, body);
  await refuseHiddenNames(model, hidden, body.filters);
  return updateRecords(model, body, { ...options, ifMatch: ifMatchOf(headers) });
});
