import type { Model } from '../../models/model';
import { epochSeconds, isExpired } from '../expiry/ttl';
import { reachIn } from '../reach';
import { DATA_ATTRIBUTE, TTL_ATTRIBUTE } from '../table';
import { isMatchAll, type FilterNode } from './ast';

/**
 * Records not expired at `now` (epoch seconds): without the item's expiry, or with one still
 * ahead. DynamoDB deletes an expired item within days, and until then it is still in the table
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html): this condition,
 * in every read and every write's condition, is what makes it gone at once.
 */
export const unexpired = (now = epochSeconds()): FilterNode => ({
  kind: 'or',
  items: [
    { kind: 'compare', field: TTL_ATTRIBUTE, path: [TTL_ATTRIBUTE], op: 'null', operands: [] },
    { kind: 'compare', field: TTL_ATTRIBUTE, path: [TTL_ATTRIBUTE], op: 'gt', operands: [now] },
  ],
});

/**
 * The caller's filter within its reach (shared/store/reach.ts): a caller held to its own records
 * gets `<owner field> = <its subject>` as one more top-level conjunct, and on a model with a ttl
 * field no one reaches an expired record (unexpired). Whatever the filter says, `$or` or `$not`
 * around a condition on the owner field included, it only ever narrows what those conjuncts let
 * through; the planner reads the owner field's index when the model indexes it, and every
 * write's condition holds them. The tenant needs no conjunct: it is in the keys.
 */
export function withinReach(model: Model, filter: FilterNode): FilterNode {
  const owner = reachIn(model)?.owner;
  const rules: FilterNode[] = [];
  if (model.owner && owner !== undefined) rules.push({ kind: 'compare', field: model.owner, path: [DATA_ATTRIBUTE, model.owner], op: 'eq', operands: [owner] });
  if (model.ttl !== undefined) rules.push(unexpired());
  if (rules.length === 0) return filter;
  if (isMatchAll(filter) && rules.length === 1) return rules[0];
  return { kind: 'and', items: [...(isMatchAll(filter) ? [] : filter.kind === 'and' ? filter.items : [filter]), ...rules] };
}

/**
 * Whether a record read by its key is within the caller's reach: its key already holds the
 * tenant, so the owner and the expiry are left to compare. A read by key that finds another
 * owner's record, or an expired one, must treat it as missing, and say nothing of what it holds.
 */
export function reaches(model: Model, item: Record<string, unknown>): boolean {
  const owner = reachIn(model)?.owner;
  if (model.ttl !== undefined && isExpired(item)) return false;
  return !model.owner || owner === undefined || (item[DATA_ATTRIBUTE] as Record<string, unknown> | undefined)?.[model.owner] === owner;
}
