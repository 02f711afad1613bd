import { updateOperation } from '../../shared/api/update';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('update', updateOperation);
