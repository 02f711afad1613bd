import { ApiError } from '../../errors';
import type { HttpFunctionName } from '../../manifest/functions';
import { routeKeysOf } from '../../manifest/routes';
import type { HttpRequest } from '../../contract';

/**
 * Fail closed: a function answers only the route keys it is deployed behind. An event for any
 * other key (a wrong integration, a direct invocation) is 404 before anything else looks at it.
 */
export function ownRoutesOnly(fn: HttpFunctionName) {
  const served = new Set(routeKeysOf(fn));
  return {
    before: async ({ event }: HttpRequest) => {
      if (!served.has(event.routeKey)) throw new ApiError('route_not_found', `No route ${event.requestContext?.http?.method} ${event.rawPath}`);
    },
  };
}
