import type * as z from 'zod';
import { updateRecords } from '../store/actions/update/update';
import './cursor-key';
import { ifMatchOf } from './preconditions';
import { recordOperation } from './record-operation';
import type { updateAnswerSchema } from './responses';
import { updateRequest } from './requests/update';

export const updateOperation = recordOperation(
  updateRequest,
  (model, body, options, headers): Promise<z.infer<typeof updateAnswerSchema>> => updateRecords(model, body, { ...options, ifMatch: ifMatchOf(headers) }),
);
