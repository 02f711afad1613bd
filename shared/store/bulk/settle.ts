import type { Model } from '../../models/model';
import { encodeResumeCursor } from '../cursor/cursor';
import { OutcomeUnknown, PartialWrite, type BulkCounts } from '../errors';
import type { Matched } from './match';
import { utf8Order } from '../utf8-order';
import type { BulkGuard, DeleteAnswer, UpdateAnswer } from '../types';

/**
 * null when every matched record was reached; else a cursor that goes on after the last one
 * reached (or from where this call began, when none was), naming the records past that point
 * this call changed and counted, so that the call resuming neither writes nor counts them again.
 * A delete's are gone: only an update's are named. writeEach starts no write after a failure, so
 * they are at most the writes that were in flight.
 */
async function resumeCursor(
  model: Model,
  fingerprint: string,
  request: BulkGuard,
  { items, operation, cursorKey, resumed }: Pick<Matched, 'items' | 'operation' | 'cursorKey' | 'resumed'>,
  results: PromiseSettledResult<boolean>[],
  { reached, namesWritten }: { reached: number; namesWritten: boolean },
): Promise<string | null> {
  if (reached === items.length) return null;
  const after = reached > 0 ? (items[reached - 1].id as string) : resumed.after;
  const past = (id: string) => utf8Order(id, after) > 0;
  const written = namesWritten
    ? [
        ...resumed.written.filter(past),
        ...items.flatMap((item, i) => (i >= reached && results[i]?.status === 'fulfilled' && results[i].value ? [item.id as string] : [])),
      ]
    : [];
  return encodeResumeCursor(cursorKey, model, fingerprint, { after, operation, wide: request.allow_all === true, written });
}

type Answers = { updated: UpdateAnswer; deleted: DeleteAnswer };

/**
 * The answer of a bulk write from each record's outcome (true: changed, false: skipped), for
 * the records it reached before its deadline. A record whose write may or may not have landed
 * (OutcomeUnknown) is counted apart as `unknown`, never as changed or as failed, so that what
 * was changed lies between the count and the count plus `unknown`. An error answer only when
 * nothing is known to be changed: PartialWrite with the counts, whose cause is the first record
 * in doubt if any (outcome_unknown: something may have been written), else the first failure.
 * Once a record was changed, a failure answers 200 with what was done, `complete: false` and a
 * cursor that goes on from the first record not known to be done. The records after it that this
 * call changed are counted here and named by the cursor; those in doubt that landed are
 * recognised by the operation's token when the cursor is sent, and counted by that call: over
 * the calls, each record is written and counted once.
 */
export async function settle<K extends keyof Answers>(
  key: K,
  results: PromiseSettledResult<boolean>[],
  matched: Matched,
  cursorOf: { model: Model; fingerprint: string; request: BulkGuard },
): Promise<Answers[K]> {
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  const inDoubt = failures.filter((reason) => reason instanceof OutcomeUnknown);
  const unknown = inDoubt.length > 0 ? { unknown: inDoubt.length } : {};
  // A keyed retry's planned records that are gone were deleted by its run: a delete counts them as done, an update as skipped.
  const { gone = 0, stale = 0 } = matched.planned ?? {};
  const changed = results.filter((r) => r.status === 'fulfilled' && r.value).length + (key === 'deleted' ? gone : 0);
  const reachedNone = key === 'deleted' ? stale : gone + stale;
  const matchedCount = matched.items.length + gone + stale;
  const firstFailure = results.findIndex((r) => r.status === 'rejected');
  if (firstFailure >= 0 && changed === 0) {
    const counts = { [key]: 0, matched: matchedCount, failed: failures.length - inDoubt.length, ...unknown } as BulkCounts;
    throw new PartialWrite(inDoubt[0] ?? failures[0], counts);
  }
  const reached = firstFailure >= 0 ? firstFailure : results.length;
  const nextCursor = await resumeCursor(cursorOf.model, cursorOf.fingerprint, cursorOf.request, matched, results, { reached, namesWritten: key === 'updated' });
  const skipped = results.filter((r) => r.status === 'fulfilled' && !r.value).length + reachedNone;
  return { [key]: changed, matched: matchedCount, skipped, ...unknown, complete: nextCursor === null, next_cursor: nextCursor } as Answers[K];
}
