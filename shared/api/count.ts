import { countRecords } from '../store/records';
import { recordOperation } from './record-operation';
import { countRequest } from './requests';

export const countOperation = recordOperation('count', countRequest, (model, body) => countRecords(model, body));
