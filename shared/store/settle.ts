import type { Model } from '../models/define';
import { encodeResumeCursor } from './cursor';
import { PartialWrite, type BulkCounts } from './errors';
import type { Matched } from './match';
import type { BulkGuard, DeleteAnswer, UpdateAnswer } from './types';

/**
 * null when every matched record was reached; else a cursor that goes on after the last one
 * reached (or from where this call began, when none was).
 */
async function resumeCursor(
  model: Model,
  fingerprint: string,
  request: BulkGuard,
  { items, operation, cursorKey }: Pick<Matched, 'items' | 'operation' | 'cursorKey'>,
  reached: number,
): Promise<string | null> {
  if (reached === items.length) return null;
  const wide = request.allow_all === true;
  if (reached > 0) return encodeResumeCursor(cursorKey, model, fingerprint, { after: items[reached - 1].id as string, operation, wide });
  return request.cursor ?? encodeResumeCursor(cursorKey, model, fingerprint, { after: '', operation, wide });
}

type Answers = { updated: UpdateAnswer; deleted: DeleteAnswer };

/**
 * The answer of a bulk write from each record's outcome (true: changed, false: skipped), for
 * the records it reached before its deadline. An error answer only when nothing was changed:
 * PartialWrite, the first failure with the counts. Once a record was changed, a failure
 * answers 200 with what was done, `complete: false` and a cursor that goes on from the first
 * failed record; the records after it that this operation already wrote are recognised by the
 * operation's token and not written twice.
 */
export async function settle<K extends keyof Answers>(
  key: K,
  results: PromiseSettledResult<boolean>[],
  matched: Matched,
  cursorOf: { model: Model; fingerprint: string; request: BulkGuard },
): Promise<Answers[K]> {
  const changed = results.filter((r) => r.status === 'fulfilled' && r.value).length;
  const firstFailure = results.findIndex((r) => r.status === 'rejected');
  if (firstFailure >= 0 && changed === 0) {
    const counts = { [key]: 0, matched: matched.items.length, failed: results.filter((r) => r.status === 'rejected').length } as BulkCounts;
    throw new PartialWrite((results[firstFailure] as PromiseRejectedResult).reason, counts);
  }
  const reached = firstFailure >= 0 ? firstFailure : results.length;
  const nextCursor = await resumeCursor(cursorOf.model, cursorOf.fingerprint, cursorOf.request, matched, reached);
  const skipped = results.filter((r) => r.status === 'fulfilled' && !r.value).length;
  return { [key]: changed, matched: matched.items.length, skipped, complete: nextCursor === null, next_cursor: nextCursor } as Answers[K];
}
