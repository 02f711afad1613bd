import { isExactNumber } from '../json/exact-json';
import type { FilterNode } from '../store/filter/ast';
import { parseFilter } from '../store/filter/parse';
import { reachIn } from '../store/reach';
import { withinReach } from '../store/filter/reach';
import { aggregateRefusal, modelLayout } from '../store/layout/layout';
import { DATA_ATTRIBUTE } from '../store/table';
import type { CountRequest } from '../store/types';
import type { Model } from '../models/model';
import { groupPart } from './keys';
import { groupCount } from './read';

/** A value a group is keyed by: what a counter's group can equal. */
const isGroupValue = (value: unknown): boolean => typeof value === 'string' || typeof value === 'boolean' || isExactNumber(value);

/**
 * The data fields a filter asks for by equality and nothing else (`{"a": 1, "b": {"$eq": "x"}}`),
 * each with its one value; undefined for any other filter (a range, `$or`, a field named twice
 * with two values, a system field, a nested path).
 */
export function equalityOf(filter: FilterNode): Map<string, unknown> | undefined {
  const equal = new Map<string, unknown>();
  for (const node of filter.kind === 'and' ? filter.items : [filter]) {
    if (node.kind !== 'compare' || node.op !== 'eq' || node.path.length !== 2 || node.path[0] !== DATA_ATTRIBUTE) return undefined;
    const [value] = node.operands;
    if (!isGroupValue(value) || (equal.has(node.field) && groupPart(equal.get(node.field)) !== groupPart(value))) return undefined;
    equal.set(node.field, value);
  }
  return equal;
}

/**
 * The count of a filter that is exactly one group of a ready aggregate that counts (equality on
 * each of its group fields and nothing else; no filter for one without group fields), read from
 * its counter: one GetItem. Undefined when no aggregate answers it, or the caller asks for a
 * consistent count, which only the records give: counters follow the change feed, seconds behind.
 * `model` as the caller reaches it: an owner's equality is in its filter, a tenant's in the key.
 * Never for a model with a ttl field: its reach holds the expiry condition (withinReach), no
 * equality, so its records answer and no expired record is counted.
 */
export async function countFromAggregate(model: Model, request: CountRequest): Promise<{ count: number; scanned: number; aggregate: string } | undefined> {
  const aggregates = Object.entries(model.aggregates).filter(([, definition]) => definition.count);
  // The service's own count of a tenant model (no caller, so no tenant) spans every tenant's counters: the records answer it.
  if (aggregates.length === 0 || request.consistent || (model.tenant && reachIn(model)?.tenant === undefined)) return undefined;
  const equal = equalityOf(withinReach(model, parseFilter(model, request.filters)));
  if (!equal) return undefined;
  const layout = await modelLayout(model);
  for (const [name, definition] of aggregates) {
    if (definition.group_by.length !== equal.size || !definition.group_by.every((field) => equal.has(field))) continue;
    if (aggregateRefusal(model, layout, name)) continue;
    return {
      ...(await groupCount(
        model,
        name,
        definition.group_by.map((field) => equal.get(field)),
      )),
      aggregate: name,
    };
  }
  return undefined;
}
