import { countOperation } from '../../shared/api/operations';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('count', countOperation);
