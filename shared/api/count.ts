import { countRecords } from '../store/actions/count/count';
import { recordOperation } from './record-operation';
import { countRequest } from './requests';

export const countOperation = recordOperation(countRequest, false, (model, body) => countRecords(model, body));
