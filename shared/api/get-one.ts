import { hiddenFields } from '../access/rules';
import { getOneTagged } from '../store/actions/get-one/get-one';
import { checkFields } from '../store/read/projection';
import { shownRecord } from './field-rules/answers';
import { refuseHiddenNames } from './field-rules/load-reads';
import { recordOperation, WithHeaders } from './record-operation';
import { getOneRequest } from './requests/get-one';

// The ETag lets a client make its next write conditional on the record it read (If-Match).
export const getOneOperation = recordOperation(getOneRequest, async (model, body, options, _headers, caller) => {
  const hidden = hiddenFields(model, caller);
  await refuseHiddenNames(model, hidden, body.filters, undefined, (seen) => checkFields(seen, body.fields));
  const { record, etag } = await getOneTagged(model, body, options);
  return new WithHeaders(shownRecord(record, hidden), { etag });
});
