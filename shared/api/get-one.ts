import { getOneRecord } from '../store/actions/get-one/get-one';
import { recordOperation } from './record-operation';
import { getOneRequest } from './requests/get-one';

export const getOneOperation = recordOperation(getOneRequest, (model, body) => getOneRecord(model, body));
