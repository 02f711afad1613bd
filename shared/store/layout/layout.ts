import { createHash } from 'node:crypto';
import { inTime } from '../../invocation';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import type { AggregateDefinition, IndexKind, Model } from '../../models/model';
import { db } from '../client';
import { AggregateBuilding, IndexBuilding, LayoutMismatch } from '../errors';
import { partitionKey, shardOf } from '../keys';
import { baseModel } from '../reach';
import { ALL_READY, type IndexReadiness } from '../read/plan';
import { shardPage } from '../read/query';
import { INDEX_SLOTS, TABLE_KEY } from '../table';

/**
 * What the stored records of a model were written with: which field each index slot holds and
 * what kinds of value its keys encode, how many shards, and which slots are still being filled for records written before their field was
 * indexed. One item per model under a partition no model can have (model names start with a
 * letter), holding no index key, so no index and no model's query ever reads it.
 */
export const LAYOUT_PARTITION = '_layout';

export interface BuildProgress {
  /** The shard being filled, and the last id of it done (null: none yet). */
  shard: number;
  after: string | null;
  /** Records whose index entries the build has written or found written. */
  done: number;
}

/** One aggregate as the layout records it (issue 35); its counters are shared/aggregates/'s. */
export interface AggregateRecord {
  /** A fingerprint of its definition when first recorded: counters kept under one definition answer for it alone. */
  definition: string;
  /**
   * `building` until every record stored when it was declared has gone through the backfill
   * (shared/aggregates/backfill.ts); `removed` once the model no longer declares it: its counters
   * missed changes since, so the name is not taken again.
   */
  state: 'building' | 'ready' | 'removed';
  progress: BuildProgress;
}

export interface Layout {
  /** slots[N] is the field index slot N holds. */
  slots: string[];
  /**
   * kinds[N]: the kinds of value slot N's keys may hold (its field's declared ones, or those seen
   * in stored keys). A layout recorded before kinds were has none, and takes the definition's.
   */
  kinds?: IndexKind[][];
  shards: number;
  /**
   * The tenant field whose value starts every key of the model's records (shared/store/keys.ts
   * keySpace); absent for a model without a tenant rule, as in every layout recorded before rules were.
   */
  tenant?: string;
  /** The fields of the last slots whose entries are not yet written for every record: never read through. */
  building: string[];
  progress: BuildProgress;
  /** The aggregates ever declared, by name; absent while none is. */
  aggregates?: Record<string, AggregateRecord>;
  /** A fingerprint of the model's stored schema when the layout was last recorded (shared/store/layout/index-build.ts). */
  schema?: string;
  /** Grows by one per recorded change: every change is conditional on the one it read. */
  version: number;
}

const fingerprints = new WeakMap<Model, string>();

/**
 * A fingerprint of the data the model stores (its output JSON Schema): tells a schema change
 * apart in the layout record. Hashed once per definition: every update by id compares it.
 */
export function schemaFingerprint(view: Model): string {
  const model = baseModel(view);
  let fingerprint = fingerprints.get(model);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(JSON.stringify(model.storedSchema)).digest('base64url').slice(0, 16);
    fingerprints.set(model, fingerprint);
  }
  return fingerprint;
}

export const layoutKey = (model: Model) => ({ [TABLE_KEY.partitionKey]: LAYOUT_PARTITION, [TABLE_KEY.sortKey]: model.name });

export const NO_PROGRESS: BuildProgress = { shard: 0, after: null, done: 0 };

/** A build's progress after a page of `count` records of its shard that ended at id `last` (none: the shard is done). */
export const progressAfter = ({ shard, done }: BuildProgress, count: number, last: string | undefined): BuildProgress =>
  last !== undefined ? { shard, after: last, done: done + count } : { shard: shard + 1, after: null, done: done + count };

/** The layout a model's definition asks for, every index ready: what an empty model is given. */
const kindsOf = (model: Model): IndexKind[][] => model.indexKinds.map((kinds) => [...kinds]);

export const layoutOf = (model: Model, version = 0): Layout => ({
  slots: [...model.indexed],
  kinds: kindsOf(model),
  shards: model.shards,
  ...(model.tenant ? { tenant: model.tenant.field } : {}),
  building: [],
  progress: NO_PROGRESS,
  version,
});

/** The recorded layout, read consistently, or undefined when none was recorded. */
export async function readLayout(model: Model): Promise<Layout | undefined> {
  const { Item: item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: layoutKey(model), ConsistentRead: true }), inTime());
  if (!item) return undefined;
  return {
    slots: item.slots as string[],
    kinds: item.kinds as IndexKind[][] | undefined,
    shards: Number(item.shards),
    ...(typeof item.tenant === 'string' ? { tenant: item.tenant } : {}),
    building: (item.building as string[]) ?? [],
    progress: (item.progress as BuildProgress | undefined) ?? NO_PROGRESS,
    ...(item.aggregates ? { aggregates: item.aggregates as Record<string, AggregateRecord> } : {}),
    schema: item.schema as string | undefined,
    version: Number(item.version),
  };
}

/** The kind of value an index sort key encodes (shared/store/keys.ts: strings `"...`, numbers `0...` to `2...`), or undefined for a missing one. */
const kindOfKey = (key: string | undefined): IndexKind | undefined =>
  key?.startsWith('"') ? 'string' : key && key[0] >= '0' && key[0] <= '2' ? 'number' : undefined;

/** Up to this many records of each shard tell the layout of data stored before layouts were recorded. */
const PROBE_RECORDS = 25;

/** Whether any record is stored in the first `shards` partitions of the model. */
export async function holdsData(model: Model, shards: number): Promise<boolean> {
  const reads = await Promise.all(Array.from({ length: shards }, (_, shard) => shardPage(model, shard, { limit: 1 })));
  return reads.some((read) => read.items.length > 0);
}

/**
 * The layout of records stored with no layout recorded (by a release before layouts were), as
 * their own keys tell it: the field of each index slot is in its partition key
 * (`<model>#<field>#<shard>`) and the kinds of its values in its sort key, a slot no record has
 * is a field indexed since, a record in a partition its id does not hash to under today's shard
 * count was stored with another one, and a sort key that is more than its id holds a tenant.
 * Undefined when the model holds nothing. Shards lowered since cannot be seen: their records
 * are in partitions the definition no longer reads.
 */
export async function inferLayout(model: Model): Promise<Layout | undefined> {
  const reads = await Promise.all(Array.from({ length: model.shards }, (_, shard) => shardPage(model, shard, { limit: PROBE_RECORDS })));
  const items = reads.flatMap((read) => read.items);
  if (items.length === 0) return undefined;
  const misplaced = items.some((item) => item[TABLE_KEY.partitionKey] !== partitionKey(model, shardOf(model, item.id as string)));
  const slots: string[] = [];
  const kinds: IndexKind[][] = [];
  const building: string[] = [];
  for (const slot of INDEX_SLOTS) {
    const fields = new Set(items.map((item) => (item[slot.partitionKey] as string | undefined)?.split('#')[1]));
    const field = [...fields].find((f) => f !== undefined);
    if (field === undefined) break;
    slots.push(field);
    const seen = new Set(items.map((item) => kindOfKey(item[slot.sortKey] as string | undefined)));
    kinds.push((['number', 'string'] as const).filter((kind) => seen.has(kind)));
    // Some records hold the slot and some do not: written before and after the field was indexed.
    if (fields.has(undefined)) building.push(field);
  }
  // A sort key longer than its id starts with a tenant's key space: which field named the tenant the keys do not tell, so the definition's is taken.
  const tenanted = items.some((item) => item[TABLE_KEY.sortKey] !== item.id);
  const tenant = tenanted ? { tenant: model.tenant?.field ?? 'a tenant field' } : {};
  return { slots, kinds, shards: misplaced ? Number.NaN : model.shards, ...tenant, building, progress: NO_PROGRESS, version: 0 };
}

/** The way out every refused change offers besides undoing it: the tool, and the steps. */
const MOVE_RECORDS = 'move the records to a new model with npm run export and npm run import (docs/record-api.md, "Move the records to a new model")';

/** How the definition differs from the stored layout in a way stored records cannot follow, with what to do; undefined when they can. */
export function incompatibleChange(model: Model, stored: Layout): { change: string; fix: string } | undefined {
  if (stored.shards !== model.shards) {
    const was = Number.isNaN(stored.shards) ? 'another shard count' : `shards: ${stored.shards}`;
    return {
      change: `its records are stored with ${was}, but its definition says shards: ${model.shards}, so records would be looked for in the wrong partitions`,
      fix: `put shards back${Number.isNaN(stored.shards) ? '' : ` to ${stored.shards}`} (a model's shards are fixed once it holds data), or ${MOVE_RECORDS}`,
    };
  }
  if (stored.tenant !== model.tenant?.field) {
    const keyed = (field: string | undefined) => (field === undefined ? 'with no tenant rule' : `per tenant, by ${field}`);
    return {
      change: `its records are keyed ${keyed(stored.tenant)}, but its definition keys them ${keyed(model.tenant?.field)}, so records would be looked for under the wrong keys`,
      fix: `put the tenant rule back as it was (a model's tenant rule is fixed once it holds data), or ${MOVE_RECORDS}, declared with the rule: import keeps each record in the tenant its data names (docs/security.md, "Row rules in the store")`,
    };
  }
  const kept = model.indexed.slice(0, stored.slots.length);
  if (kept.length !== stored.slots.length || kept.some((field, i) => field !== stored.slots[i])) {
    return {
      change: `its records are indexed as [${stored.slots.join(', ')}], but its definition says indexed: [${model.indexed.join(', ')}], which drops or reorders an index slot`,
      fix: `keep [${stored.slots.join(', ')}] first and in that order (indexed fields are append only: add new ones at the end), or ${MOVE_RECORDS}`,
    };
  }
  // Keys encode numbers and strings apart, and a filter takes only what the field holds now: a
  // kind dropped from an indexed field leaves its stored values refused by filters and unfound.
  const narrowed = stored.slots.findIndex((_, i) => (stored.kinds?.[i] ?? []).some((kind) => !model.indexKinds[i].includes(kind)));
  if (narrowed >= 0) {
    const field = stored.slots[narrowed];
    const was = stored.kinds![narrowed].join(' and ');
    return {
      change: `its records' index on ${field} holds ${was} values, but its definition says ${field} holds ${model.indexKinds[narrowed].join(' or ')}, so filters would refuse the stored values and the index would not find them`,
      fix: `declare ${field} to hold ${was} again (a union with the new type is fine), or ${MOVE_RECORDS}`,
    };
  }
  return undefined;
}

/**
 * The layout the model's records are read with, from the stored one: refused when the
 * definition changed in a way the stored records cannot follow (unless the model holds nothing,
 * when the definition's own layout applies), with the fields indexed since still building. Reads
 * only; recording it is the index build's (shared/store/layout/index-build.ts). `recorded`: the layout
 * already read.
 */
async function indexLayout(model: Model, stored: Layout | undefined): Promise<Layout> {
  if (!stored) return layoutOf(model);
  const incompatible = incompatibleChange(model, stored);
  if (incompatible) {
    const shards = Math.max(model.shards, Number.isNaN(stored.shards) ? 0 : stored.shards);
    if (await holdsData(model, shards)) throw new LayoutMismatch(model.name, incompatible.change, incompatible.fix);
    return { ...layoutOf(model, stored.version), ...(stored.aggregates ? { aggregates: stored.aggregates } : {}) };
  }
  // Every stored kind is one the definition holds, so from now on its keys may hold the definition's.
  const kept = { ...stored, kinds: kindsOf(model) };
  const added = model.indexed.slice(stored.slots.length);
  if (added.length === 0) return kept;
  if (!(await holdsData(model, model.shards))) return { ...kept, slots: [...model.indexed] };
  return { ...kept, slots: [...model.indexed], building: [...stored.building, ...added], progress: NO_PROGRESS };
}

/** A fingerprint of what an aggregate keeps: its groups (in key order) and what it counts and sums. */
export const aggregateFingerprint = (definition: AggregateDefinition): string =>
  createHash('sha256')
    .update(JSON.stringify([definition.group_by, definition.count === true, [...(definition.sum ?? [])].sort()]))
    .digest('base64url')
    .slice(0, 16);

/**
 * The aggregates' records beside an index layout: each one recorded stays (marked removed once
 * no longer declared), and one declared since starts building when the model holds records
 * (ready at once when it holds none: there is nothing to backfill).
 */
async function withAggregates(model: Model, stored: Layout | undefined, layout: Layout): Promise<Layout> {
  const recorded = stored?.aggregates ?? {};
  const aggregates: Record<string, AggregateRecord> = {};
  for (const [name, record] of Object.entries(recorded))
    aggregates[name] = name in model.aggregates ? record : { ...record, state: 'removed', progress: NO_PROGRESS };
  let holds: boolean | undefined;
  for (const [name, definition] of Object.entries(model.aggregates)) {
    if (name in recorded) continue;
    holds ??= stored !== undefined && (await holdsData(model, model.shards));
    aggregates[name] = { definition: aggregateFingerprint(definition), state: holds ? 'building' : 'ready', progress: NO_PROGRESS };
  }
  const { aggregates: _, ...rest } = layout;
  return Object.keys(aggregates).length === 0 ? rest : { ...rest, aggregates };
}

/**
 * The layout the model's records are read with, from the stored one: refused when the
 * definition changed in a way the stored records cannot follow (unless the model holds nothing,
 * when the definition's own layout applies), with the fields indexed since still building and
 * the aggregates declared since backfilling. Reads only; recording it is the index build's
 * (shared/store/layout/index-build.ts). `recorded`: the layout already read.
 */
export async function resolveLayout(model: Model, recorded?: Layout): Promise<Layout> {
  const stored = recorded ?? (await readLayout(model)) ?? (await inferLayout(model));
  return withAggregates(model, stored, await indexLayout(model, stored));
}

/** Whether a declared aggregate still has records to backfill. */
export const aggregatesBuilding = (layout: Layout): boolean => Object.values(layout.aggregates ?? {}).some((a) => a.state === 'building');

/**
 * Why the aggregate's counters may not be read now, if they may not: AggregateBuilding while its
 * backfill runs, LayoutMismatch when they were kept for another definition, or it was removed and
 * declared again (they missed the changes in between).
 */
export function aggregateRefusal(model: Model, layout: Layout, name: string): AggregateBuilding | LayoutMismatch | undefined {
  const record = layout.aggregates?.[name];
  // A layout not recorded since the aggregate was declared, on a model holding nothing: ready.
  if (record === undefined) return undefined;
  const fix = `declare it under a new name (counters are kept per name, from the changes since it was declared); the old name's counters stay unused`;
  if (record.state === 'removed') {
    return new LayoutMismatch(
      model.name,
      `its aggregate ${name} was removed from the definition and declared again, so its counters missed the changes in between`,
      fix,
    );
  }
  if (record.definition !== aggregateFingerprint(model.aggregates[name])) {
    return new LayoutMismatch(model.name, `its aggregate ${name} is declared with another group_by, count or sum than its counters were kept for`, fix);
  }
  return record.state === 'building' ? new AggregateBuilding(model.name, name, record.progress, layout.shards) : undefined;
}

/**
 * While an index builds, a container reads its layout again at most this often, so a finished
 * build is used within seconds; once every index is ready, the layout is read once per container.
 */
const REFRESH_MS = 5_000;

const known = new Map<Model, { layout: Promise<Layout>; readAt: number }>();

/**
 * The layout of the model's stored records, cached per container and definition: one
 * consistent GetItem on a container's first request for a model (and a few short Queries more
 * only when no layout was recorded, or the definition differs from it). A refusal and a build
 * in progress are looked at again after REFRESH_MS; a read that failed, at the next request.
 */
export async function modelLayout(view: Model): Promise<Layout> {
  // One layout per definition, whoever's reach an action narrowed it to.
  const model = baseModel(view);
  const entry = known.get(model);
  if (entry && Date.now() - entry.readAt < REFRESH_MS) return entry.layout;
  if (entry) {
    const settled = await entry.layout.catch(() => undefined);
    if (settled && settled.building.length === 0 && !aggregatesBuilding(settled)) return settled;
  }
  const layout = resolveLayout(model);
  const fresh = { layout, readAt: Date.now() };
  known.set(model, fresh);
  // A refusal stands until it is looked at again; a failed read (the database unavailable) is tried again by the next request.
  layout.catch((error: unknown) => {
    if (!(error instanceof LayoutMismatch) && known.get(model) === fresh) known.delete(model);
  });
  return layout;
}

/** Tells this container's cache what the index build just recorded, so its reads use it at once. */
export function rememberLayout(model: Model, layout: Layout): void {
  known.set(model, { layout: Promise.resolve(layout), readAt: Date.now() });
}

/**
 * Whether the model's layout records the schema it has now: its stored records were then
 * written under it, as far as the layout tells. A write that checks only what it changes (an
 * update's one write, a transaction's atomic update) waits for it, since a record stored under
 * an earlier schema (holding a field since dropped) must be read and made valid first.
 */
export const schemaRecorded = async (model: Model): Promise<boolean> => (await modelLayout(model)).schema === schemaFingerprint(model);

export function readinessOf(model: Model, layout: Layout): IndexReadiness {
  if (layout.building.length === 0) return ALL_READY;
  const building = new Set(layout.building);
  return {
    building,
    checkOrder(field) {
      if (building.has(field)) throw new IndexBuilding(model.name, field, layout.progress, layout.shards);
    },
  };
}

/** The readiness of the model's indexes now: what every record action asks before it plans a read. */
export const indexReadiness = async (model: Model): Promise<IndexReadiness> => readinessOf(model, await modelLayout(model));
