import { deleteScope, authorizeBody } from '../../access/scopes';
import { authorizeScope } from '../../auth/authorize';
import type { HttpRequest } from '../../contract';
import type { HttpFunction } from '../../manifest/functions';

/**
 * Who calls, and whether the function's scope lets them: settled before the body is read, so a
 * stranger learns nothing from a 413 or a 400 about what the body would have done. A function
 * whose scope depends on its model (delete) looks the model up by the path alone.
 */
export const authorizeCaller = ({ scope, adminWithoutOwner }: Pick<HttpFunction, 'scope' | 'adminWithoutOwner'>) => ({
  before: async ({ event, context }: HttpRequest) => {
    const byModel = adminWithoutOwner ? (caller: Parameters<typeof deleteScope>[0]) => deleteScope(caller, event.pathParameters?.model_name) : undefined;
    context.caller = await authorizeScope(event, scope, byModel);
  },
});

/** What the body asks for may need more than the route does (`allow_all` takes admin): checked once it is read. */
export const authorizeBodyScope = () => ({
  before: async ({ context }: HttpRequest) => {
    await authorizeBody(context.caller, context.apiRequest?.body);
  },
});
