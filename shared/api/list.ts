import { listRecords } from '../store/actions/list/list';
import { cursorKey } from './cursor-key';
import { recordOperation } from './record-operation';
import { listRequest } from './requests';

export const listOperation = recordOperation('list', listRequest, (model, body) => listRecords(model, body, cursorKey));
