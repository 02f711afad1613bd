import { listOperation } from '../../shared/api/list';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('list', listOperation);
