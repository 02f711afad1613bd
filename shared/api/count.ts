import { countRecords } from '../store/actions/count/count';
import { recordOperation } from './record-operation';
import { countRequest } from './requests';

export const countOperation = recordOperation('count', countRequest, (model, body) => countRecords(model, body));
