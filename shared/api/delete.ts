import type * as z from 'zod';
import { deleteRecords } from '../store/actions/delete/delete';
import './cursor-key';
import { ifMatchOf } from './preconditions';
import { recordOperation } from './record-operation';
import type { deleteAnswerSchema } from './responses';
import { deleteRequest } from './requests/delete';

export const deleteOperation = recordOperation(
  deleteRequest,
  (model, body, options, headers): Promise<z.infer<typeof deleteAnswerSchema>> => deleteRecords(model, body, { ...options, ifMatch: ifMatchOf(headers) }),
);
