import { applyRecordState } from '../aggregates/apply';
import { findModel } from '../models/catalog';
import { CREATED_ATTRIBUTE } from '../store/table';
import type { Change } from './change';

/**
 * Applies a committed change of a record to every aggregate its model declares (docs/record-api.md
 * "Aggregates"): the record's state after it, or for a delete the state deleted. `sortKey` is the
 * record item's sort key, from the stream record's keys. Each aggregate's apply is exactly once
 * (shared/aggregates/apply.ts), so a change handed over again, or an older one after a newer,
 * counts nothing twice; throws when any aggregate could not take it, for the stream to hand it over again.
 */
export async function keepAggregates(change: Change, sortKey: string): Promise<void> {
  const model = await findModel(change.model);
  const names = Object.keys(model?.aggregates ?? {});
  if (!model || names.length === 0) return;
  const image = change.op === 'delete' ? change.before : change.after;
  const state = {
    id: change.id,
    sortKey,
    createdAt: String(image?.[CREATED_ATTRIBUTE]),
    version: change.version,
    ...(change.op === 'delete' ? {} : { data: change.after }),
  };
  await Promise.all(names.map((name) => applyRecordState(model, name, state)));
}
