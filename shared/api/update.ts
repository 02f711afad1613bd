import type * as z from 'zod';
import { hiddenFor } from '../access/caller-rules';
import { updateRecordsTagged } from '../store/actions/update/update';
import './cursor-key';
import { checkValueNames } from './field-rules/load-values';
import { refuseHiddenNames } from './field-rules/load-reads';
import { ifMatchOf } from './preconditions';
import { recordOperation, WithHeaders } from './record-operation';
import type { updateAnswerSchema } from './responses';
import { updateRequest } from './requests/update';

type UpdateAnswer = z.infer<typeof updateAnswerSchema>;

// The ETag of the one record an update by id changed lets the client's next write send If-Match without a get_one.
export const updateOperation = recordOperation(
  updateRequest,
  async (model, body, options, headers, caller): Promise<UpdateAnswer | WithHeaders<UpdateAnswer>> => {
    // Values first, then filters, as the store reads them.
    const hidden = await hiddenFor(model, caller);
    await checkValueNames(model, hidden, body);
    await refuseHiddenNames(model, hidden, body.filters);
    const { answer, etag } = await updateRecordsTagged(model, body, { ...options, ifMatch: ifMatchOf(headers) });
    return etag === undefined ? answer : new WithHeaders(answer, { etag });
  },
);
