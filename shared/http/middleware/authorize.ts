import { deleteScope, authorizeBody } from '../../access/scopes';
import { authorizeScope } from '../../auth/authorize';
import type { HttpRequest } from '../../contract';
import { servingCaller } from '../../invocation';
import type { HttpFunction } from '../../manifest/functions';

/**
 * Who calls, and whether the function's scope lets them: settled before the body is read, so a
 * stranger learns nothing from a 413 or a 400 about what the body would have done. A function
 * whose scope depends on its model (delete) looks the model up by the path alone. The caller's
 * digest is the invocation's from here on: every record write is stamped with it.
 */
export const authorizeCaller = ({ scope, adminWithoutOwner }: Pick<HttpFunction, 'scope' | 'adminWithoutOwner'>) => ({
  before: async ({ event, context }: HttpRequest) => {
    const byModel = adminWithoutOwner ? (caller: Parameters<typeof deleteScope>[0]) => deleteScope(caller, event.pathParameters?.model_name) : undefined;
    const caller = await authorizeScope(event, scope, byModel);
    context.caller = caller;
    if (caller) servingCaller(caller.subject);
  },
});

/** What the body asks for may need more than the route does (`allow_all` takes admin): checked once it is read. */
export const authorizeBodyScope = () => ({
  before: async ({ context }: HttpRequest) => {
    await authorizeBody(context.caller, context.apiRequest?.body);
  },
});
