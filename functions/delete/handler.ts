import { deleteOperation } from '../../shared/api/delete';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('delete', deleteOperation);
