import type * as z from 'zod';
import { countRecords } from '../store/actions/count/count';
import { recordOperation } from './record-operation';
import type { countAnswerSchema } from './responses';
import { countRequest } from './requests/count';

export const countOperation = recordOperation(
  countRequest,
  (model, body, options): Promise<z.infer<typeof countAnswerSchema>> => countRecords(model, body, options),
);
