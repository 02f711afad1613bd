import type * as z from 'zod';
import { hiddenFields } from '../access/rules';
import { countRecords } from '../store/actions/count/count';
import { refuseHiddenNames } from './field-rules/load-reads';
import { recordOperation } from './record-operation';
import type { countAnswerSchema } from './responses';
import { countRequest } from './requests/count';

export const countOperation = recordOperation(countRequest, async (model, body, options, _headers, caller): Promise<z.infer<typeof countAnswerSchema>> => {
  await refuseHiddenNames(model, hiddenFields(model, caller), body.filters);
  return countRecords(model, body, options);
});
