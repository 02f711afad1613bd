import { ApiError } from './errors';
import type { Operation } from './middleware';
import { DEFAULT_ROUTE_KEY, defaultRouteFor, methodsFor } from './routes';

/** Answers requests no route takes, in the same envelope: 405 with Allow, or 404. */
export const fallbackOperation: Operation = async ({ event }) => {
  const method = event.requestContext.http.method;
  const allowed = methodsFor(event.rawPath).filter((m) => m !== method);
  if (allowed.length > 0) {
    throw new ApiError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(', ')}`, { allowed }, { allow: allowed.join(', ') });
  }
  throw new ApiError('route_not_found', `No route ${method} ${event.rawPath}`);
};

/**
 * The operation of the `$default` route's function: requests for the routes only `$default`
 * reaches (exact method and raw path) go to `operation`, every other one gets the fallback's
 * 404/405. Requests that arrive by one of the function's own route keys go to `operation`.
 */
export const withDefaultRoute = (operation: Operation): Operation => (request) => {
  const { event } = request;
  const unmatched = event.routeKey === DEFAULT_ROUTE_KEY && !defaultRouteFor(event.requestContext.http.method, event.rawPath);
  return unmatched ? fallbackOperation(request) : operation(request);
};
