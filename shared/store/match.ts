import { LIMITS } from '../limits';
import type { Model } from '../models/define';
import { decodeResumeCursor, PROCESS_CURSOR_KEY, type CursorKey } from './cursor';
import { EmptyFilter, InvalidCursor, MatchesAll, TooManyMatches } from './errors';
import { isMatchAll, MATCH_ALL, type FilterNode } from './filter/ast';
import { parseFilter } from './filter/parse';
import { shardOf } from './keys';
import { indexReadiness } from './layout';
import { ID_ORDER, planAccess } from './plan';
import { countShard, readAll, type Item } from './query';
import type { KeyRun } from '../idempotency/keys';
import { CREATED_ATTRIBUTE } from './table';
import type { BulkGuard } from './types';
import { utf8Order } from './utf8-order';
import { currentItem, newWriteToken, writtenBy } from './write-token';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { inTime } from '../invocation';
import { db } from './client';
import { mapPool } from './pool';
import { rereadParams } from './actions/update/params';

export interface Matched {
  filter: FilterNode;
  /** In id order (UTF-8 bytes, as DynamoDB sorts), so the records written are always a prefix. */
  items: Item[];
  /** The bulk operation this call is part of: begun by a call without a cursor, carried on by its cursors. */
  operation: string;
  /** The key this call's cursors are checked and signed with. */
  cursorKey: CursorKey;
  /**
   * A keyed retry's records of its run's plan that it no longer reaches: `gone` (no longer
   * stored) and `stale` (stored, not written by the run, no longer matching).
   */
  planned?: { gone: number; stale: number };
}

/** How a bulk update or delete runs, as its caller says. */
export interface BulkOptions {
  /**
   * The Idempotency-Key's run this call is (shared/idempotency/keys.ts): its operation, so that
   * a retry recognises what an earlier run wrote, and its first time, so that it acts only on
   * records that existed then.
   */
  keyRun?: KeyRun;
  /** The key of its cursors (shared/store/cursor.ts); without one, a key of this process. */
  cursorKey?: CursorKey;
}

/** Records created no later than `time` (epoch ms). */
const existedAt = (time: number): FilterNode => ({
  kind: 'compare',
  field: CREATED_ATTRIBUTE,
  path: [CREATED_ATTRIBUTE],
  op: 'lte',
  operands: [new Date(time).toISOString()],
});

/**
 * Whether `items` are every record of the model. Each shard is counted (Select COUNT, strongly
 * consistent) only until it holds more records than were matched in it, so the answer costs at
 * most one key per shard more than the matches. A matched record deleted since it was read
 * makes the shard look whole: the doubt is resolved towards refusing.
 */
async function isWholeModel(model: Model, items: Item[]): Promise<boolean> {
  const matchedIn = new Map<number, number>();
  for (const item of items) {
    const shard = shardOf(model, item.id as string);
    matchedIn.set(shard, (matchedIn.get(shard) ?? 0) + 1);
  }
  const plan = planAccess(model, MATCH_ALL, ID_ORDER);
  const whole = await Promise.all(
    plan.shards.map(async (shard) => {
      const matched = matchedIn.get(shard) ?? 0;
      return (await countShard({ plan, filter: MATCH_ALL, consistent: true }, shard, matched)).count <= matched;
    }),
  );
  return whole.every(Boolean);
}

/**
 * The records a bulk update or delete would touch, after its guards: no accidental all (an empty
 * filter, or one that matches every record of a model holding 2 or more, needs allow_all), no
 * more than allowed; with a cursor, only those after the last record the earlier call reached.
 * Every call is checked, a resumed one too: a cursor proves only that an earlier call was let
 * through, and the model may have changed since.
 */
export async function matchForWrite(
  model: Model,
  guard: BulkGuard,
  fingerprint: string,
  { keyRun, cursorKey: keyOf = PROCESS_CURSOR_KEY }: BulkOptions,
): Promise<Matched> {
  // Read before any write: the cursor of a call that stops early is signed after its writes
  // settled, which may be at the invocation's cutoff, when a secret could no longer be read.
  const key = await keyOf();
  const cursorKey: CursorKey = async () => key;
  const readiness = await indexReadiness(model);
  let filter = parseFilter(model, guard.filters);
  if (isMatchAll(filter) && guard.allow_all !== true) throw new EmptyFilter();
  // An Idempotency-Key's run names the operation, so a retry of a run whose outcome was unknown skips what it wrote.
  let operation = keyRun?.operation ?? newWriteToken();
  // A retry finishes the first run's work: a record created since that run began (another writer's) is not its to touch.
  if (keyRun) filter = { kind: 'and', items: [filter, existedAt(keyRun.since)] };
  if (guard.cursor !== undefined) {
    const resume = await decodeResumeCursor(cursorKey, guard.cursor, model, fingerprint);
    // What an admin began with allow_all is not carried on without it, by a write token that holds its cursor.
    if (resume.wide && guard.allow_all !== true)
      throw new InvalidCursor('This cursor carries on a request with allow_all: send allow_all: true with it', 'issued with allow_all');
    operation = resume.operation ?? operation;
    filter = { kind: 'and', items: [filter, { kind: 'compare', field: 'id', path: ['id'], op: 'gt', operands: [resume.after] }] };
  }
  if (keyRun?.plan) return { ...(await plannedItems(model, filter, keyRun.plan, operation)), operation, cursorKey };
  const maxAffected = guard.max_affected ?? LIMITS.maxAffected;
  const { items, truncated } = await readAll({ plan: planAccess(model, filter, ID_ORDER, readiness), filter, consistent: true }, maxAffected);
  if (truncated) throw new TooManyMatches(maxAffected);
  if (guard.allow_all !== true && items.length >= 2 && (await isWholeModel(model, items))) throw new MatchesAll(model.name, items.length);
  items.sort((a, b) => utf8Order(a.id as string, b.id as string));
  // Before the first write, so that a retry of this run works on the same records and counts what this one did.
  await keyRun?.keepPlan?.(items.map((item) => item.id as string));
  return { filter, items, operation, cursorKey };
}

/** The record as stored now (strongly consistent), if it still matches `filter`: for a write that must re-check it. */
export const stillMatching = async (model: Model, filter: FilterNode, id: string): Promise<Item | undefined> =>
  (await db().send(new QueryCommand(rereadParams(model, filter, id)), inTime())).Items?.[0] as Item | undefined;

/**
 * A keyed retry's records: those its run planned to change (KeyRun.plan), each read again. A
 * record the run already wrote is kept (its write is recognised and counted, not made again), as
 * is one that still matches; the others are counted apart, so that the answer counts what the
 * whole run did.
 */
async function plannedItems(
  model: Model,
  filter: FilterNode,
  plan: ReadonlyArray<string>,
  operation: string,
): Promise<Pick<Matched, 'filter' | 'items' | 'planned'>> {
  const planned = { gone: 0, stale: 0 };
  const items: Item[] = [];
  const reads = await mapPool(plan, LIMITS.writeConcurrency, async (id) => {
    const stored = await currentItem(model, id);
    if (!stored || writtenBy(stored, operation)) return stored ?? 'gone';
    return (await stillMatching(model, filter, id)) ?? 'stale';
  });
  for (const read of reads) {
    if (read.status === 'rejected') throw read.reason;
    if (read.value === 'gone' || read.value === 'stale') planned[read.value] += 1;
    else items.push(read.value);
  }
  items.sort((a, b) => utf8Order(a.id as string, b.id as string));
  return { filter, items, planned };
}
