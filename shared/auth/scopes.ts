import * as zm from '../zod';

/**
 * What a token may do. Scopes do not imply each other: `admin` (delete, `allow_all`, the feed's routes) is kept
 * apart from `write` so that a token able to wipe a model has to be handed out on purpose.
 */
export const scopeSchema = zm.enum(['read', 'write', 'admin']);
export type Scope = zm.infer<typeof scopeSchema>;

/** What a route asks of its caller: a scope, or nothing at all. */
export type RouteScope = Scope | 'public';

/** The scope a caller's token must carry, or undefined for a public route: the one place that tells the two apart. */
export const tokenScopeOf = (scope: RouteScope): Scope | undefined => (scope === 'public' ? undefined : scope);
