import { InvalidValues, RecordExists } from '../../errors';
import type { FilterNode } from '../../filter/ast';
import { applyChanges } from '../../operators/apply';
import type { Changes } from '../../operators/changes';
import { DATA_ATTRIBUTE } from '../../table';
import type { Model } from '../../../models/model';
import type { KeyRun } from '../../types';
import { createItems } from '../create/create';
import { entityTag } from '../../write/entity-tag';

const compares = (node: FilterNode): Array<Extract<FilterNode, { kind: 'compare' }>> => {
  if (node.kind === 'compare') return [node];
  return node.kind === 'and' ? node.items.flatMap(compares) : [];
};

/**
 * What an upsert creates a missing record from: the id and the other equalities its filter
 * states (a dotted path into its nested object). Refused unless the filter names the id by
 * equality: DynamoDB keeps only the key unique, so "the record this filter matches" is one
 * record only when it is named by its id.
 */
export function upsertSeed(filter: FilterNode): { id: string; data: Record<string, unknown> } {
  const equalities = compares(filter).filter((c) => c.op === 'eq');
  const id = equalities.find((c) => c.field === 'id')?.operands[0];
  if (typeof id !== 'string') {
    throw new InvalidValues(
      'upsert needs filters that name the record by its id, as {"id": "<id>"}: DynamoDB keeps only the key unique, so no other filter names one record to create or update',
      [{ path: 'filters', message: 'upsert needs an id equality' }],
    );
  }
  const data: Record<string, unknown> = {};
  for (const { path, operands } of equalities) {
    if (path[0] !== DATA_ATTRIBUTE) continue;
    let object = data;
    for (const segment of path.slice(1, -1)) {
      if (!Object.hasOwn(object, segment)) object[segment] = {};
      object = object[segment] as Record<string, unknown>;
    }
    object[path[path.length - 1]] = operands[0];
  }
  return { id, data };
}

/**
 * Creates the record an upsert missed, from its seed and every change ($setOnInsert too),
 * validated as a create (problems at `values`): its entity tag, or false when a concurrent
 * write created it first.
 */
export async function createdFrom(model: Model, seed: ReturnType<typeof upsertSeed>, changes: Changes, keyRun: KeyRun | undefined): Promise<string | false> {
  const data = applyChanges(seed.data, changes, { inserting: true });
  try {
    const [item] = await createItems(model, { records: [{ id: seed.id, data }] }, { keyRun, pathOf: () => ['values'] });
    return entityTag(item);
  } catch (error) {
    if (error instanceof RecordExists) return false;
    throw error;
  }
}
