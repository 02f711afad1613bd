import { deleteRecords } from '../store/actions/delete/delete';
import { recordOperation } from './record-operation';
import { deleteRequest } from './requests';

export const deleteOperation = recordOperation(deleteRequest, true, (model, body, deadline) => deleteRecords(model, body, deadline));
