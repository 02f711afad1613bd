import { updateRecords } from '../store/records';
import { recordOperation } from './record-operation';
import { updateRequest } from './requests';

export const updateOperation = recordOperation('update', updateRequest, (model, body, deadline) => updateRecords(model, body, deadline));
