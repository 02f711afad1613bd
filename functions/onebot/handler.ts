import { withDefaultRoute } from '../../shared/http/fallback';
import { httpHandler } from '../../shared/http/middleware';
import { onebotReceive } from '../../shared/onebot/receive';

// The receiver is also API Gateway's $default target (shared/http/routes.ts): unknown routes get 404/405.
export const handler = httpHandler('onebot', withDefaultRoute(onebotReceive));
