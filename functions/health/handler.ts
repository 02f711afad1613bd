import { healthOperation } from '../../shared/api/operations';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('health', healthOperation, { parseBody: false });
