import { getOneRecord } from '../store/records';
import { recordOperation } from './record-operation';
import { getOneRequest } from './requests';

export const getOneOperation = recordOperation('get_one', getOneRequest, (model, body) => getOneRecord(model, body));
