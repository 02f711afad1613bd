import { countOperation } from '../../shared/api/count';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('count', countOperation);
