import { updateRecords } from '../store/actions/update/update';
import { recordOperation } from './record-operation';
import { updateRequest } from './requests';

export const updateOperation = recordOperation(updateRequest, true, (model, body, deadline) => updateRecords(model, body, deadline));
