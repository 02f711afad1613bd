import { deleteRecords } from '../store/actions/delete/delete';
import { cursorKey } from './cursor-key';
import { recordOperation } from './record-operation';
import { deleteRequest } from './requests';

export const deleteOperation = recordOperation('delete', deleteRequest, (model, body, deadline, keyRun) =>
  deleteRecords(model, body, { deadline, operation: keyRun?.operation, cursorKey }),
);
