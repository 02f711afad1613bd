import { getOneTagged } from '../store/actions/get-one/get-one';
import { recordOperation, WithHeaders } from './record-operation';
import { getOneRequest } from './requests/get-one';

// The ETag lets a client make its next write conditional on the record it read (If-Match).
export const getOneOperation = recordOperation(getOneRequest, async (model, body, options) => {
  const { record, etag } = await getOneTagged(model, body, options);
  return new WithHeaders(record, { etag });
});
