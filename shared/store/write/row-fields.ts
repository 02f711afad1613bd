import type { Model } from '../../models/model';
import { pathText } from '../../models/details';
import { OutsideReach } from '../errors';
import type { Changes } from '../operators/changes';
import { reachIn } from '../reach';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A new record's data as its writer may create it (shared/store/reach.ts): the owner field, when
 * the data names none, holds the writer's subject, and the tenant field its tenant. Naming
 * another owner is refused to a writer held to its own records (admin may name any); naming
 * another tenant is refused to everyone. Data that is not an object is left to the model's check.
 */
export function stampedData(model: Model, data: unknown, at: PropertyKey[]): unknown {
  const reach = reachIn(model);
  if (!reach || !isObject(data)) return data;
  const stamped = { ...data };
  if (model.owner) {
    const named = stamped[model.owner];
    if (named === undefined) {
      if (reach.creator !== undefined) stamped[model.owner] = reach.creator;
    } else if (reach.owner !== undefined && named !== reach.owner) {
      throw new OutsideReach(
        pathText([...at, model.owner]),
        `names another owner than the caller's subject; a record is created as its caller's own (admin may name any owner)`,
      );
    }
  }
  if (model.tenant && reach.tenant !== undefined) {
    const named = stamped[model.tenant.field];
    if (named === undefined) stamped[model.tenant.field] = reach.tenant;
    else if (named !== reach.tenant)
      throw new OutsideReach(
        pathText([...at, model.tenant.field]),
        `names another tenant than the caller's ${model.tenant.claim} claim; a record is created in its caller's tenant`,
      );
  }
  return stamped;
}

/**
 * Refuses changes that would move a record out of reach, before anything is read or written: the
 * tenant field is in the record's keys and no one changes it (setting it to the caller's own
 * tenant, what it holds, is no change), and a writer held to its own records may set its owner
 * field only to its own subject. Admin may give a record to another owner.
 */
export function checkRowChanges(model: Model, changes: Changes, at: PropertyKey[] = ['values']): void {
  const reach = reachIn(model);
  for (const change of changes.list) {
    const [field] = change.path;
    const keepsTo = (value: string | undefined) =>
      (change.op === 'set' || change.op === 'setOnInsert') && change.path.length === 1 && value !== undefined && change.value === value;
    if (field === model.tenant?.field && !keepsTo(reach?.tenant))
      throw new OutsideReach(pathText([...at, ...change.path]), `is the tenant field: a record stays in the tenant that created it`);
    if (field === model.owner && reach?.owner !== undefined && !keepsTo(reach.owner))
      throw new OutsideReach(pathText([...at, ...change.path]), `is the owner field: only admin gives a record to another owner`);
  }
}
