import type * as z from 'zod';
import { listRecords } from '../store/actions/list/list';
import './cursor-key';
import { recordOperation } from './record-operation';
import type { listAnswerSchema } from './responses';
import { listRequest } from './requests/list';

export const listOperation = recordOperation(
  listRequest,
  (model, body, options): Promise<z.infer<ReturnType<typeof listAnswerSchema>>> => listRecords(model, body, options),
);
