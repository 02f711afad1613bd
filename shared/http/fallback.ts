import { ApiError } from './errors';
import type { Operation } from './middleware';
import { matchRoute } from './routes';

/** Answers requests no route takes, in the same envelope: 405 with Allow, or 404. */
export const fallbackOperation: Operation = async ({ event }) => {
  const match = matchRoute(event.requestContext.http.method, event.rawPath);
  if (match.kind === 'wrong_method') {
    throw new ApiError('method_not_allowed', `${event.requestContext.http.method} is not allowed here; use ${match.allowed.join(', ')}`, { allowed: match.allowed }, { allow: match.allowed.join(', ') });
  }
  throw new ApiError('route_not_found', `No route ${event.requestContext.http.method} ${event.rawPath}`);
};
