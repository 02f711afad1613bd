import { updateOperation } from '../../shared/api/operations';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('update', updateOperation);
