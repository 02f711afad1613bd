import { getOneOperation } from '../../shared/api/get-one';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('get_one', getOneOperation);
