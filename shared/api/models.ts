import { hiddenFor } from '../access/caller-rules';
import type { Operation } from '../contract';
import { SYSTEM_FIELDS, sortableFields, type Model } from '../models/model';
import { loadAllModels } from '../models/load-all';
import { LayoutMismatch } from '../store/errors';
import { aggregateRefusal, modelLayout } from '../store/layout/layout';
import { visibleAggregates } from '../aggregates/visible';
import { AggregateBuilding } from '../store/errors';
import { INDEX_SLOTS } from '../store/table';
import { rulesOf, schemaSeen } from './field-rules/described';

/** The model's stored layout as the models endpoint shows it: each index's state, a build's progress, or why it is not served. */
async function layoutView(model: Model, hidden: ReadonlySet<string>) {
  const indexes = (building: ReadonlyArray<string>) =>
    model.indexed
      .map((field, i) => ({ field, index: INDEX_SLOTS[i].indexName, state: building.includes(field) ? 'building' : 'ready' }))
      .filter(({ field }) => !hidden.has(field));
  try {
    const layout = await modelLayout(model);
    if (layout.building.length === 0) return { state: 'ready', indexes: indexes([]) };
    const { done, shard } = layout.progress;
    return { state: 'building', indexes: indexes(layout.building), progress: { records_done: done, shard, shards: layout.shards } };
  } catch (error) {
    if (!(error instanceof LayoutMismatch)) throw error;
    return { state: 'mismatch', indexes: indexes([]), change: error.change, fix: error.fix };
  }
}

/** The aggregates the caller may read, each with its definition and whether its counters answer yet. */
async function aggregatesView(model: Model, hidden: ReadonlySet<string>) {
  const names = visibleAggregates(model, hidden);
  if (names.length === 0) return [];
  const layout = await modelLayout(model).catch((error: unknown) => {
    if (error instanceof LayoutMismatch) return undefined;
    throw error;
  });
  return names.map((name) => {
    const { group_by, count, sum } = model.aggregates[name];
    const refusal = layout ? aggregateRefusal(model, layout, name) : undefined;
    const definition = { name, group_by: [...group_by], count: count === true, sum: [...(sum ?? [])] };
    if (refusal instanceof AggregateBuilding) {
      const { done, shard } = refusal.progress;
      return { ...definition, state: 'building', progress: { records_done: done, shard, shards: refusal.shards } };
    }
    return { ...definition, state: refusal || !layout ? 'mismatch' : 'ready' };
  });
}

/** Each model as its caller sees it: a field hidden from the caller is in none of its parts, nor in the rules it is told of. */
export const modelsOperation: Operation = async ({ caller }) => {
  // Looked up as the record routes look them up, so both describe the same definitions.
  const visible = (await loadAllModels()).filter((m) => m.access !== 'hidden');
  const hidden = await Promise.all(visible.map((m) => hiddenFor(m, caller)));
  const layouts = await Promise.all(visible.map((m, i) => layoutView(m, hidden[i])));
  const aggregates = await Promise.all(visible.map((m, i) => aggregatesView(m, hidden[i])));
  return {
    data: {
      models: visible.map((m, i) => ({
        name: m.name,
        description: m.description,
        access: m.access,
        schema: schemaSeen(m, hidden[i]),
        system_fields: SYSTEM_FIELDS,
        indexed: m.indexed.filter((field) => !hidden[i].has(field)),
        sortable: sortableFields(m).filter((field) => !hidden[i].has(field)),
        shards: m.shards,
        // The field whose epoch seconds expire a record (docs/record-api.md, "Expiring records"); null: records never expire.
        ttl: m.ttl !== undefined && !hidden[i].has(m.ttl) ? m.ttl : null,
        rules: rulesOf(m, hidden[i]),
        layout: layouts[i],
        aggregates: aggregates[i],
      })),
    },
  };
};
