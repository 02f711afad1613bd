import type { Model } from '../../models/model';
import { reachIn } from '../reach';
import { DATA_ATTRIBUTE } from '../table';
import { isMatchAll, type FilterNode } from './ast';

/**
 * The caller's filter within its reach (shared/store/reach.ts): a caller held to its own records
 * gets `<owner field> = <its subject>` as one more top-level conjunct. Whatever the filter says,
 * `$or` or `$not` around a condition on the owner field included, it only ever narrows what
 * that conjunct lets through; the planner reads the owner field's index when the model indexes
 * it, and every write's condition holds it. The tenant needs no conjunct: it is in the keys.
 */
export function withinReach(model: Model, filter: FilterNode): FilterNode {
  const owner = reachIn(model)?.owner;
  if (!model.owner || owner === undefined) return filter;
  const rule: FilterNode = { kind: 'compare', field: model.owner, path: [DATA_ATTRIBUTE, model.owner], op: 'eq', operands: [owner] };
  if (isMatchAll(filter)) return rule;
  return { kind: 'and', items: [...(filter.kind === 'and' ? filter.items : [filter]), rule] };
}

/**
 * Whether a record read by its key is within the caller's reach: its key already holds the
 * tenant, so only the owner is left to compare. A read by key that finds another owner's record
 * must treat it as missing, and say nothing of what it holds.
 */
export function reaches(model: Model, item: Record<string, unknown>): boolean {
  const owner = reachIn(model)?.owner;
  return !model.owner || owner === undefined || (item[DATA_ATTRIBUTE] as Record<string, unknown> | undefined)?.[model.owner] === owner;
}
