import { bulkMayContinue, inTime } from '../../invocation';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import { LIMITS } from '../../limits';
import type { Model } from '../../models/model';
import { db } from '../client';
import { sortedKeys } from '../filter/canonical';
import { LayoutMismatch } from '../errors';
import { dataSpace, indexAttributes, itemKey } from '../keys';
import { layoutKey, NO_PROGRESS, progressAfter, readLayout, rememberLayout, resolveLayout, schemaFingerprint, type Layout } from './layout';
import { mapPool } from '../write/pool';
import { shardPage, type Item } from '../read/query';
import { DATA_ATTRIBUTE, INDEX_SLOTS, VERSION_ATTRIBUTE } from '../table';
import { isConditionFailure } from '../write/write-token';

const same = (a: Layout, b: Layout) =>
  JSON.stringify([a.slots, a.kinds, a.shards, a.tenant, a.building, a.progress, a.schema, sortedKeys(a.aggregates)]) ===
  JSON.stringify([b.slots, b.kinds, b.shards, b.tenant, b.building, b.progress, b.schema, sortedKeys(b.aggregates)]);

/** Writes `next` over the layout read as `stored` (none: over nothing); false when someone recorded another in between. */
export async function saveLayout(model: Model, stored: Layout | undefined, next: Layout): Promise<boolean> {
  const { version: _, ...fields } = next;
  try {
    await db().send(
      new PutCommand({
        TableName: settings().TABLE_NAME,
        Item: { ...layoutKey(model), ...fields, version: (stored?.version ?? 0) + 1, recorded_at: new Date().toISOString() },
        ...(stored
          ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': stored.version } }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
      inTime(),
    );
    rememberLayout(model, { ...next, version: (stored?.version ?? 0) + 1 });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Records the model's layout as its stored records and its definition make it (refused with
 * LayoutMismatch as reads are; fields indexed since begin building), with its schema's
 * fingerprint; writes nothing when that is what is recorded already. The local server calls
 * this for every model at start; the index build before it fills anything.
 */
export async function recordLayout(model: Model): Promise<Layout> {
  for (;;) {
    const stored = await readLayout(model);
    const next = { ...(await resolveLayout(model, stored)), schema: schemaFingerprint(model) };
    if (stored && same(stored, next)) {
      rememberLayout(model, stored);
      return stored;
    }
    if (await saveLayout(model, stored, next)) return { ...next, version: (stored?.version ?? 0) + 1 };
  }
}

/** Records a building slot's entries are written for per page read: one consistent Query page. */
const PAGE = 100;
/** Attempts to write one record's entries while others keep changing it; past them the build stops, to resume later. */
const ATTEMPTS = 10;

/**
 * Writes the building slots' keys into one record, only while its version is the one read: a
 * concurrent write is never overwritten (it wrote the keys itself, or the record is read again
 * and its own keys written). A record deleted meanwhile is left deleted.
 */
async function fillRecord(model: Model, building: ReadonlyArray<string>, first: Item): Promise<void> {
  const slots = building.map((field) => INDEX_SLOTS[model.indexed.indexOf(field)]);
  let item: Item | undefined = first;
  for (let attempt = 0; item && attempt < ATTEMPTS; attempt++) {
    const id = item.id as string;
    const data = item[DATA_ATTRIBUTE] as Record<string, unknown>;
    const keys = indexAttributes(model, id, data);
    // The build reaches every tenant: each record's key is in the tenant its data names.
    const key = itemKey(model, id, dataSpace(model, data));
    const names: Record<string, string> = { '#v': VERSION_ATTRIBUTE };
    const values: Record<string, unknown> = { ':v': item[VERSION_ATTRIBUTE] };
    const set = slots.flatMap((slot, i) => {
      names[`#p${i}`] = slot.partitionKey;
      names[`#s${i}`] = slot.sortKey;
      values[`:p${i}`] = keys[slot.partitionKey];
      values[`:s${i}`] = keys[slot.sortKey];
      return [`#p${i} = :p${i}`, `#s${i} = :s${i}`];
    });
    try {
      await db().send(
        new UpdateCommand({
          TableName: settings().TABLE_NAME,
          Key: key,
          UpdateExpression: `SET ${set.join(', ')}`,
          ConditionExpression: '#v = :v',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
        inTime(),
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    item = (await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: key, ConsistentRead: true }), inTime())).Item;
  }
  if (item)
    throw new Error(`record ${item.id as string} of ${model.name} kept changing while its index entries were written; the build resumes on its next run`);
}

export interface BuildRun {
  layout: Layout;
  /** Records this run filled. */
  filled: number;
}

/**
 * Fills the building index slots of a model's stored records, shard by shard in id order,
 * recording its progress in the layout after every page: safe to run twice at once, resumed
 * from the last page recorded after a crash, and stopped between pages once the invocation's
 * deadline is near (shared/invocation.ts bulkMayContinue) or `budget` records were filled. Once
 * every shard is done, the slots are ready.
 */
export async function buildIndexes(model: Model, { budget = Infinity } = {}): Promise<BuildRun> {
  let layout = await recordLayout(model);
  let filled = 0;
  while (layout.building.length > 0 && filled < budget && bulkMayContinue()) {
    const { shard, after } = layout.progress;
    const { items, last } = await shardPage(model, shard, { after: after ?? undefined, limit: Math.min(PAGE, budget - filled) });
    for (const result of await mapPool(items, LIMITS.writeConcurrency, (item) => fillRecord(model, layout.building, item))) {
      if (result.status === 'rejected') throw result.reason;
    }
    filled += items.length;
    const progress = progressAfter(layout.progress, items.length, last);
    const finished = progress.shard >= layout.shards;
    const next: Layout = finished ? { ...layout, building: [], progress: NO_PROGRESS } : { ...layout, progress };
    // Another run recorded first (or a field was indexed since): go on from what is recorded now.
    layout = (await saveLayout(model, layout, next)) ? { ...next, version: layout.version + 1 } : await recordLayout(model);
  }
  return { layout, filled };
}

export interface ModelBuild {
  model: string;
  /** Fields still building after this run. */
  building: string[];
  filled: number;
  /** Why the model is not served (LayoutMismatch's message), when it is not. */
  refused?: string;
}

/**
 * Every model's layout recorded and its new indexes filled, one model after another until the
 * invocation's deadline is near: what the index_build function runs at each deploy and on its schedule, a run
 * going on where the last one stopped.
 */
export async function buildAllIndexes(models: ReadonlyArray<Model>): Promise<ModelBuild[]> {
  const builds: ModelBuild[] = [];
  for (const model of models) {
    try {
      const { layout, filled } = await buildIndexes(model);
      builds.push({ model: model.name, building: layout.building, filled });
    } catch (error) {
      if (!(error instanceof LayoutMismatch)) throw error;
      builds.push({ model: model.name, building: [], filled: 0, refused: error.message });
    }
  }
  return builds;
}
