import { hiddenFor } from '../access/caller-rules';
import { readGroups, type Group } from '../aggregates/read';
import { visibleAggregates } from '../aggregates/visible';
import { ApiError } from '../errors';
import { isExactNumber, isJsonObject } from '../json/exact-json';
import { LIMITS } from '../limits';
import type { AggregateDefinition, Model } from '../models/model';
import { decodeResumeCursor, encodeResumeCursor, queryFingerprint } from '../store/cursor/cursor';
import { cursorKey } from '../store/cursor/key';
import { parseFilter } from '../store/filter/parse';
import { aggregateRefusal, modelLayout } from '../store/layout/layout';
import { reached } from '../store/reach';
import type { Reach } from '../store/types';
import './cursor-key';
import { recordOperation } from './record-operation';
import { aggregateRequest } from './requests/aggregate';

const refused = (message: string, path: string, extra: Record<string, unknown> = {}) =>
  new ApiError('validation_error', message, { path, ...extra, details: [{ path, message }] });

const isGroupValue = (value: unknown): boolean => value === null || typeof value === 'string' || typeof value === 'boolean' || isExactNumber(value);

/**
 * The group fields the filters ask for by equality, each with its value. A filter is first
 * checked as every record filter is (unknown_field, invalid_filter), then held to what counters
 * can answer: equality on the aggregate's group fields, nothing else (422 naming the path).
 */
function equalityAsked(model: Model, name: string, definition: AggregateDefinition, filters: Record<string, unknown> | undefined): Map<string, unknown> {
  parseFilter(model, filters);
  const equal = new Map<string, unknown>();
  for (const [field, condition] of Object.entries(filters ?? {})) {
    const path = `filters.${field}`;
    if (!definition.group_by.includes(field)) {
      throw refused(
        `Aggregate ${name} of ${model.name} groups by [${definition.group_by.join(', ')}]: a filter names only those fields (${field} is not one of them)`,
        path,
        { group_by: definition.group_by },
      );
    }
    const operands = isJsonObject(condition) ? Object.entries(condition) : [['$eq', condition] as const];
    const [operator, value] = operands.length === 1 ? operands[0] : [];
    if (operator !== '$eq' || !isGroupValue(value)) {
      throw refused(`Aggregate ${name} answers equality on its group fields only: ${path} is to be a value or {"$eq": value}`, path);
    }
    equal.set(field, value);
  }
  return equal;
}

/**
 * A caller held to its own records (an owner rule, without admin) reads only groups of its own
 * records: an aggregate grouping by the owner field, answered for the caller's value alone.
 */
function ownGroups(model: Model, name: string, definition: AggregateDefinition, reach: Reach | undefined, equal: Map<string, unknown>): boolean {
  const owner = reach?.owner;
  if (!model.owner || owner === undefined) return true;
  if (!definition.group_by.includes(model.owner)) {
    throw new ApiError(
      'forbidden',
      `Model ${model.name} keeps each caller to its own records, and aggregate ${name} does not group by ${model.owner}, so its groups count other callers' records; only admin reads it`,
      { model: model.name, aggregate: name, required_scope: 'admin', details: [{ path: 'name', message: `does not group by the owner field ${model.owner}` }] },
    );
  }
  // Another owner's value asks for groups this caller has none of.
  if (equal.has(model.owner) && equal.get(model.owner) !== owner) return false;
  equal.set(model.owner, owner);
  return true;
}

/** `POST /api/db/{model}/aggregate`: a page of a declared aggregate's groups, each with its count and sums. */
export const aggregateOperation = recordOperation(aggregateRequest, async (model, body, { reach }, _headers, caller) => {
  const visible = visibleAggregates(model, await hiddenFor(model, caller));
  const definition = visible.includes(body.name) ? model.aggregates[body.name] : undefined;
  if (!definition) {
    throw refused(`Model ${model.name} has no aggregate ${JSON.stringify(body.name)}`, 'name', { model: model.name, available: visible });
  }
  const equal = equalityAsked(model, body.name, definition, body.filters);
  const mine = ownGroups(model, body.name, definition, reach, equal);
  const refusal = aggregateRefusal(model, await modelLayout(model), body.name);
  if (refusal) throw refusal;
  const fingerprint = queryFingerprint(body.filters, { aggregate: body.name }, reach);
  const after = body.cursor === undefined ? undefined : (await decodeResumeCursor(cursorKey, body.cursor, model, fingerprint)).after;
  const page = mine
    ? await readGroups(reached(model, reach), body.name, equal, { limit: body.limit ?? LIMITS.defaultPageSize, after, consistent: body.consistent })
    : { groups: [] as Group[], after: undefined };
  const next = page.after === undefined ? null : await encodeResumeCursor(cursorKey, model, fingerprint, { after: page.after });
  return { groups: page.groups, next_cursor: next };
});
