import { listRecords } from '../store/actions/list/list';
import { recordOperation } from './record-operation';
import { listRequest } from './requests';

export const listOperation = recordOperation(listRequest, false, (model, body) => listRecords(model, body));
