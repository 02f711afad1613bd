import { type Caller, requireScope } from '../auth/authorize';
import type { Scope } from '../auth/scopes';
import { lookUpModel } from './model-lookup';

/**
 * The scope deleting records of a model takes of a caller. Where an owner rule keeps each caller
 * to its own records, `write` deletes them (the store adds the rule to the delete), and `admin`
 * anyone's. Elsewhere only `admin` deletes: a token able to wipe a model is handed out on
 * purpose. A model the caller may not name (unknown, hidden) takes admin too, as every model
 * did before owner rules, so a refusal tells nothing of which models exist.
 */
export async function deleteScope(caller: Caller, modelName: unknown): Promise<Scope> {
  if (caller.scopes.has('admin')) return 'admin';
  const model = typeof modelName === 'string' ? await lookUpModel(modelName) : undefined;
  return model?.owner !== undefined && model.access !== 'hidden' ? 'write' : 'admin';
}

/**
 * A transaction's operation takes the scope of the route that does the same alone: a check
 * reads (read), a delete deletes (deleteScope); the rest write, as the route itself.
 */
async function operationScope(caller: Caller, operation: unknown): Promise<Scope> {
  const { op, model } = (operation ?? {}) as { op?: unknown; model?: unknown };
  if (op === 'check') return 'read';
  if (op === 'delete') return deleteScope(caller, model);
  return 'write';
}

/** The scopes a body asks for beyond its route's: `allow_all: true` touches every record of a model, so it takes admin on any route. */
async function scopesAskedFor(caller: Caller, body: unknown): Promise<Scope[]> {
  if (typeof body !== 'object' || body === null) return [];
  const { allow_all, operations } = body as { allow_all?: unknown; operations?: unknown };
  const asked: Scope[] = allow_all === true ? ['admin'] : [];
  if (!Array.isArray(operations)) return asked;
  return [...asked, ...(await Promise.all(operations.map((operation) => operationScope(caller, operation))))];
}

export async function authorizeBody(caller: Caller | undefined, body: unknown): Promise<void> {
  if (caller) for (const scope of new Set(await scopesAskedFor(caller, body))) requireScope(caller, scope);
}
