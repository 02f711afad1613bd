import { applyRecordState } from '../aggregates/apply';
import { findModel } from '../models/catalog';
import { CREATED_ATTRIBUTE } from '../store/table';
import type { CommittedChange } from './from-stream';

/**
 * Applies a committed change of a record to every aggregate its model declares (docs/record-api.md
 * "Aggregates"): the record's state after it, or for a delete the state deleted, whether or not
 * subscribers are told it (an update that moves a record's ttl into the past is not, and its
 * record must leave its groups all the same). `sortKey` is the
 * record item's sort key, from the stream record's keys. Each aggregate's apply is exactly once
 * (shared/aggregates/apply.ts), so a change handed over again, or an older one after a newer,
 * counts nothing twice; throws when any aggregate could not take it, for the stream to hand it over again.
 */
export async function keepAggregates({ change, ttl }: CommittedChange, sortKey: string): Promise<void> {
  const model = await findModel(change.model);
  const names = Object.keys(model?.aggregates ?? {});
  if (!model || names.length === 0) return;
  const image = change.op === 'delete' ? change.before : change.after;
  const state = {
    id: change.id,
    sortKey,
    createdAt: String(image?.[CREATED_ATTRIBUTE]),
    version: change.version,
    // A live state's ttl: counted until then, then taken out by the expiry pass (shared/aggregates/expire.ts).
    ...(change.op === 'delete' ? {} : { data: change.after, ...(ttl === undefined ? {} : { ttl }) }),
  };
  await Promise.all(names.map((name) => applyRecordState(model, name, state)));
}
