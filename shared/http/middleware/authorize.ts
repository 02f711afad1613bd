import { authorizeBody, authorizeScope } from '../../auth/authorize';
import type { RouteScope } from '../../auth/scopes';
import type { HttpRequest } from '../../contract';

/**
 * Who calls, and whether the function's scope lets them: settled before the body is read, so a
 * stranger learns nothing from a 413 or a 400 about what the body would have done.
 */
export const authorizeCaller = (scope: RouteScope) => ({
  before: async ({ event, context }: HttpRequest) => {
    context.caller = await authorizeScope(event, scope);
  },
});

/** What the body asks for may need more than the route does (`allow_all` takes admin): checked once it is read. */
export const authorizeBodyScope = () => ({
  before: async ({ context }: HttpRequest) => {
    authorizeBody(context.caller, context.apiRequest?.body);
  },
});
