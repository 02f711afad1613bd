import { bulkMayContinue } from '../invocation';
import { LIMITS } from '../limits';
import type { Model } from '../models/model';
import { AggregateBuilding, LayoutMismatch } from '../store/errors';
import { aggregateRefusal, NO_PROGRESS, progressAfter, type Layout } from '../store/layout/layout';
import { buildAllIndexes, recordLayout, saveLayout, type ModelBuild } from '../store/layout/index-build';
import { shardPage, type Item } from '../store/read/query';
import { storedExpiry } from '../store/expiry/ttl';
import { CREATED_ATTRIBUTE, DATA_ATTRIBUTE, TABLE_KEY, VERSION_ATTRIBUTE } from '../store/table';
import { mapPool } from '../store/write/pool';
import { applyRecordState } from './apply';

/** Records whose state is applied per page read: one consistent Query page, as the index build reads. */
const PAGE = 100;

/** The declared aggregates still building under their own definitions: the backfill's work, in declaration order. */
export const buildingAggregates = (model: Model, layout: Layout): string[] =>
  Object.keys(model.aggregates).filter((name) => aggregateRefusal(model, layout, name) instanceof AggregateBuilding);

/**
 * A stored record's item as the state applyRecordState takes, with its expiry: one already
 * expired is counted nowhere, one that will expire gets its expiry marker (./markers.ts).
 */
const stateOf = (item: Item) => {
  const ttl = storedExpiry(item);
  return {
    id: item.id as string,
    sortKey: item[TABLE_KEY.sortKey] as string,
    createdAt: item[CREATED_ATTRIBUTE] as string,
    version: Number(item[VERSION_ATTRIBUTE]),
    data: item[DATA_ATTRIBUTE] as Record<string, unknown>,
    ...(ttl === undefined ? {} : { ttl }),
  };
};

/**
 * Counts the records stored before an aggregate was declared into its counters: each shard in id
 * order, each record's current state (read consistently) through applyRecordState, the one way
 * counters change, so that a state the change feed's consumer applies too, before or after,
 * counts once and the newest state wins. Progress is recorded in the layout after every page
 * (conditional on its version, as the index build's): safe twice at once, resumed after a crash,
 * stopped between pages near the invocation's deadline or after `budget` records. When the last
 * shard is done the aggregate is ready. Answers the layout after the run and the record states it applied (or found applied).
 */
export async function backfillAggregates(model: Model, { budget = Infinity } = {}): Promise<{ layout: Layout; applied: number }> {
  let layout = await recordLayout(model);
  let applied = 0;
  for (
    let [name] = buildingAggregates(model, layout);
    name !== undefined && applied < budget && bulkMayContinue();
    [name] = buildingAggregates(model, layout)
  ) {
    const record = layout.aggregates![name];
    const { shard, after } = record.progress;
    const { items, last } = await shardPage(model, shard, { after: after ?? undefined, limit: Math.min(PAGE, budget - applied) });
    const aggregate = name;
    for (const result of await mapPool(items, LIMITS.writeConcurrency, (item) => applyRecordState(model, aggregate, stateOf(item)))) {
      if (result.status === 'rejected') throw result.reason;
    }
    applied += items.length;
    const progress = progressAfter(record.progress, items.length, last);
    const finished = progress.shard >= layout.shards;
    const next: Layout = {
      ...layout,
      aggregates: { ...layout.aggregates, [name]: finished ? { ...record, state: 'ready', progress: NO_PROGRESS } : { ...record, progress } },
    };
    // Another run recorded first: go on from what is recorded now.
    layout = (await saveLayout(model, layout, next)) ? { ...next, version: layout.version + 1 } : await recordLayout(model);
  }
  return { layout, applied };
}

export interface ModelBackfill extends ModelBuild {
  /** Of a model declaring aggregates: those still building after this run, and the record states this run applied to them. */
  aggregates_building?: string[];
  applied?: number;
}

/**
 * Every model's layout recorded, its new indexes filled and its new aggregates backfilled, one
 * model after another until the invocation's deadline is near: what the index_build function
 * runs at each deploy and on its schedule.
 */
export async function buildAll(models: ReadonlyArray<Model>): Promise<ModelBackfill[]> {
  const builds = await buildAllIndexes(models);
  const runs: ModelBackfill[] = [];
  for (const [i, model] of models.entries()) {
    const build = builds[i];
    if (build.refused || Object.keys(model.aggregates).length === 0) {
      runs.push(build);
      continue;
    }
    try {
      const { layout, applied } = await backfillAggregates(model);
      runs.push({ ...build, aggregates_building: buildingAggregates(model, layout), applied });
    } catch (error) {
      if (!(error instanceof LayoutMismatch)) throw error;
      runs.push({ ...build, refused: error.message });
    }
  }
  return runs;
}
