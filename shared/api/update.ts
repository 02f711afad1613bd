import type * as z from 'zod';
import { updateRecordsTagged } from '../store/actions/update/update';
import './cursor-key';
import { ifMatchOf } from './preconditions';
import { recordOperation, WithHeaders } from './record-operation';
import type { updateAnswerSchema } from './responses';
import { updateRequest } from './requests/update';

type UpdateAnswer = z.infer<typeof updateAnswerSchema>;

// The ETag of the one record an update by id changed lets the client's next write send If-Match without a get_one.
export const updateOperation = recordOperation(updateRequest, async (model, body, keyRun, headers): Promise<UpdateAnswer | WithHeaders<UpdateAnswer>> => {
  const { answer, etag } = await updateRecordsTagged(model, body, { keyRun, ifMatch: ifMatchOf(headers) });
  return etag === undefined ? answer : new WithHeaders(answer, { etag });
});
