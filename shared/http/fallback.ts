import { ApiError } from '../errors';
import type { Operation } from '../contract';
import { DEFAULT_ROUTE_KEY, defaultRouteFor, methodsFor } from '../manifest/routes';

/** Where a person who opens the service's root URL in a browser is sent. */
const ROOT_REDIRECT = '/docs';

/**
 * Answers requests no route takes, in the same envelope: 405 with Allow, or 404. A GET of the
 * root URL (POST / is the OneBot receiver) is a person looking around: it goes to the docs.
 */
export const fallbackOperation: Operation = async ({ event }) => {
  const method = event.requestContext.http.method;
  if (method === 'GET' && event.rawPath === '/') {
    return {
      statusCode: 302,
      headers: { location: ROOT_REDIRECT, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      body: `See ${ROOT_REDIRECT} for the API documentation.\n`,
    };
  }
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
export const withDefaultRoute =
  (operation: Operation): Operation =>
  (request) => {
    const { event } = request;
    const unmatched = event.routeKey === DEFAULT_ROUTE_KEY && !defaultRouteFor(event.requestContext.http.method, event.rawPath);
    return unmatched ? fallbackOperation(request) : operation(request);
  };
