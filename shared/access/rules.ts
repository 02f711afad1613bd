import type { Caller } from '../auth/authorize';
import { ApiError } from '../errors';
import { LIMITS } from '../limits';
import type { Model } from '../models/model';
import type { Reach } from '../store/types';

/**
 * What a caller reaches of a model under its row rules (docs/security.md). A tenant rule holds
 * for every caller, admin included: a credential without the tenant claim reaches nothing, since
 * no record belongs to "no tenant". An owner rule holds for a caller without admin, which must
 * then carry a subject; admin crosses owners. Undefined: no rule, every record.
 */
export function reachOf(model: Model, caller: Caller): Reach | undefined {
  if (!model.tenant && !model.owner) return undefined;
  const reach: Reach = {};
  if (model.tenant) {
    const tenant = caller.claims[model.tenant.claim];
    if (!tenant) {
      throw new ApiError('forbidden', `Model ${model.name} keeps each tenant's records apart, and this credential carries no ${model.tenant.claim} claim`, {
        model: model.name,
        required_claim: model.tenant.claim,
      });
    }
    if (Buffer.byteLength(tenant, 'utf8') > LIMITS.maxTenantBytes) {
      throw new ApiError(
        'forbidden',
        `Model ${model.name} keys each record by its tenant, and this credential's ${model.tenant.claim} claim is longer than ${LIMITS.maxTenantBytes} bytes`,
        {
          model: model.name,
          required_claim: model.tenant.claim,
        },
      );
    }
    reach.tenant = tenant;
  }
  if (model.owner) {
    const admin = caller.scopes.has('admin');
    if (!caller.sub && !admin) {
      throw new ApiError('forbidden', `Model ${model.name} keeps each caller to its own records, and this credential names no subject`, {
        model: model.name,
        required_claim: 'sub',
      });
    }
    reach.creator = caller.sub;
    if (!admin) reach.owner = caller.sub;
  }
  return reach;
}

/** The fields a caller may not see: to it they do not exist, in answers, filters, orders or writes. */
export function hiddenFields(model: Model, caller: Caller | undefined): ReadonlySet<string> {
  const hidden = new Set<string>();
  for (const [field, rule] of Object.entries(model.fields)) {
    const to = rule.visibleTo;
    if (!to || !caller) continue;
    const sees = 'scope' in to ? caller.scopes.has(to.scope) : Boolean(caller.claims[to.claim]);
    if (!sees) hidden.add(field);
  }
  return hidden;
}

/** The fields only the service sets: an API caller naming one in a write is refused. */
export const readOnlyFields = (model: Model): ReadonlyArray<string> =>
  Object.entries(model.fields)
    .filter(([, rule]) => rule.readOnly)
    .map(([field]) => field);
