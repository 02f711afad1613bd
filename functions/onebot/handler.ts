import { httpHandler } from '../../shared/http/middleware';
import { onebotReceive } from '../../shared/onebot/receive';

// The receiver is also API Gateway's $default target (shared/manifest/routes.ts): httpHandler answers unknown routes 404/405.
export const handler = httpHandler('onebot', onebotReceive);
