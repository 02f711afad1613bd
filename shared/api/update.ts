import { updateRecords } from '../store/actions/update/update';
import { cursorKey } from './cursor-key';
import { recordOperation } from './record-operation';
import { updateRequest } from './requests';

export const updateOperation = recordOperation('update', updateRequest, (model, body, deadline, keyRun) =>
  updateRecords(model, body, { deadline, operation: keyRun?.operation, cursorKey }),
);
