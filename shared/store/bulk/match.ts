import { LIMITS } from '../../limits';
import type { Model } from '../../models/model';
import { decodeResumeCursor } from '../cursor/cursor';
import { cursorKey, type CursorKey } from '../cursor/key';
import { EmptyFilter, InvalidCursor, MatchesAll, PreconditionFailed, PreconditionNeedsId, TooManyMatches } from '../errors';
import { isMatchAll, MATCH_ALL, namedId, type FilterNode } from '../filter/ast';
import { parseFilter } from '../filter/parse';
import { withinReach } from '../filter/reach';
import { shardOf } from '../keys';
import { indexReadiness } from '../layout/layout';
import { ID_ORDER, planAccess } from '../read/plan';
import { countShard, readAll, type Item } from '../read/query';
import { CREATED_ATTRIBUTE } from '../table';
import type { BulkGuard, IfMatch, WriteOptions } from '../types';
import { checkIfMatch } from '../write/entity-tag';
import { utf8Order } from '../utf8-order';
import { currentItem, newWriteToken, writtenBy } from '../write/write-token';
import { mapPool } from '../write/pool';
import { stillMatching } from '../read/still-matching';

export interface Matched {
  filter: FilterNode;
  /** In id order (UTF-8 bytes, as DynamoDB sorts), so the records written are always a prefix. */
  items: Item[];
  /** The bulk operation this call is part of: begun by a call without a cursor, carried on by its cursors. */
  operation: string;
  /** Where this call began: after the record `after` in id order ('' = from the first), leaving out the records `written` (Resume). */
  resumed: { after: string; written: string[] };
  /** The configured cursor key (shared/store/cursor/key.ts) as read once, before any write: this call's cursors are checked and signed with it. */
  cursorKey: CursorKey;
  /**
   * A keyed retry's records of its run's plan that it no longer reaches: `gone` (no longer
   * stored) and `stale` (stored, not written by the run, no longer matching).
   */
  planned?: { gone: number; stale: number };
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
  // Every record the caller reaches: another owner's or tenant's records make no filter "not all".
  const all = withinReach(model, MATCH_ALL);
  const plan = planAccess(model, all, ID_ORDER);
  const whole = await Promise.all(
    plan.shards.map(async (shard) => {
      const matched = matchedIn.get(shard) ?? 0;
      return (await countShard({ plan, filter: all, consistent: true }, shard, matched)).count <= matched;
    }),
  );
  return whole.every(Boolean);
}

/**
 * The records a bulk update or delete would touch, after its guards: no accidental all (an empty
 * filter, or one that matches every record of a model holding 2 or more, needs allow_all), no
 * more than allowed; with a cursor, only those after the last record the earlier call reached.
 * If-Match takes filters that name one id (an entity tag is one record's), and the record read must meet it.
 * Every call is checked, a resumed one too: a cursor proves only that an earlier call was let
 * through, and the model may have changed since.
 */
export async function matchForWrite(model: Model, guard: BulkGuard, fingerprint: string, { keyRun, ifMatch, createLost }: WriteOptions): Promise<Matched> {
  // Read before any write: the cursor of a call that stops early is signed after its writes
  // settled, which may be at the invocation's cutoff, when a secret could no longer be read.
  const key = await cursorKey();
  const signingKey: CursorKey = async () => key;
  const readiness = await indexReadiness(model);
  let filter = parseFilter(model, guard.filters);
  if (isMatchAll(filter) && guard.allow_all !== true) throw new EmptyFilter();
  const id = namedId(filter);
  if (ifMatch !== undefined && id === undefined) throw new PreconditionNeedsId();
  // Past the guards, which judge the caller's own filter: from here on it holds the caller's reach, each write's condition too.
  filter = withinReach(model, filter);
  // An Idempotency-Key's run names the operation, so a retry of a run whose outcome was unknown skips what it wrote.
  let operation = keyRun?.operation ?? newWriteToken();
  // A retry finishes the first run's work: a record created since that run began (another writer's) is not its to touch,
  // unless the run is an upsert whose create just lost to that record, which it then updates as any upsert would.
  const finishing = createLost ? undefined : keyRun;
  if (finishing) filter = { kind: 'and', items: [filter, existedAt(finishing.since)] };
  let resumed: Matched['resumed'] = { after: '', written: [] };
  if (guard.cursor !== undefined) {
    const resume = await decodeResumeCursor(signingKey, guard.cursor, model, fingerprint);
    resumed = { after: resume.after, written: resume.written ?? [] };
    // What an admin began with allow_all is not carried on without it, by a write token that holds its cursor.
    if (resume.wide && guard.allow_all !== true)
      throw new InvalidCursor('This cursor carries on a request with allow_all: send allow_all: true with it', 'issued with allow_all');
    operation = resume.operation ?? operation;
    filter = { kind: 'and', items: [filter, { kind: 'compare', field: 'id', path: ['id'], op: 'gt', operands: [resume.after] }] };
  }
  const unwritten = (items: Item[]) => items.filter((item) => !resumed.written.includes(item.id as string));
  if (finishing?.plan) {
    const planned = await plannedItems(model, filter, finishing.plan, operation);
    return meetsIfMatch({ ...planned, items: unwritten(planned.items), operation, resumed, cursorKey: signingKey }, ifMatch, id);
  }
  const maxAffected = guard.max_affected ?? LIMITS.maxAffected;
  const { items, truncated } = await readAll({ plan: planAccess(model, filter, ID_ORDER, readiness), filter, consistent: true }, maxAffected);
  if (truncated) throw new TooManyMatches(maxAffected);
  if (guard.allow_all !== true && items.length >= 2 && (await isWholeModel(model, items))) throw new MatchesAll(model.name, items.length);
  items.sort((a, b) => utf8Order(a.id as string, b.id as string));
  const matched = meetsIfMatch({ filter, items: unwritten(items), operation, resumed, cursorKey: signingKey }, ifMatch, id);
  // Before the first write, so that a retry of this run works on the same records and counts what this one did.
  await keyRun?.keepPlan?.(matched.items.map((item) => item.id as string));
  return matched;
}

/**
 * Refuses a write by id whose If-Match the record read does not meet (nothing matched fails it
 * too), before anything is written; a record this operation already wrote (a keyed retry) is
 * its own work, not a change by someone else. The write's condition is the token read, and each
 * re-read after a lost race is checked again (shared/store/write/entity-tag.ts).
 */
function meetsIfMatch(matched: Matched, ifMatch: IfMatch | undefined, id: string | undefined): Matched {
  if (ifMatch === undefined || id === undefined) return matched;
  const { items, operation, planned } = matched;
  if (items.length === 0 && planned === undefined) throw new PreconditionFailed(id);
  for (const item of items) if (!writtenBy(item, operation)) checkIfMatch(ifMatch, item.id as string, item);
  return matched;
}

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
