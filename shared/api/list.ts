import { listRecords } from '../store/records';
import { recordOperation } from './record-operation';
import { listRequest } from './requests';

export const listOperation = recordOperation('list', listRequest, (model, body) => listRecords(model, body));
