import { healthOperation } from '../../shared/api/health';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('health', healthOperation);
