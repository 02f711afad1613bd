import type { Model } from '../models/define';
import { encodeResumeCursor } from './cursor';
import { PartialWrite, type BulkCounts } from './errors';
import type { Matched } from './match';
import type { BulkGuard, DeleteAnswer, UpdateAnswer } from './types';

/**
 * null when every matched record was reached; else a cursor that goes on after the last one
 * reached (or from where this call began, when the deadline came before any write).
 */
export async function resumeCursor(
  model: Model,
  fingerprint: string,
  request: BulkGuard,
  { items, operation }: Pick<Matched, 'items' | 'operation'>,
  reached: number,
): Promise<string | null> {
  if (reached === items.length) return null;
  if (reached > 0) return encodeResumeCursor(model, fingerprint, { after: items[reached - 1].id as string, operation });
  return request.cursor ?? encodeResumeCursor(model, fingerprint, { after: '', operation });
}

type Answers = { updated: UpdateAnswer; deleted: DeleteAnswer };

/**
 * The answer of a bulk write from each record's outcome (true: changed, false: skipped), or,
 * when some writes failed for good, PartialWrite: the first failure with exactly how many
 * records were changed before giving up.
 */
export function settle<K extends keyof Answers>(results: PromiseSettledResult<boolean>[], key: K, matched: number, nextCursor: string | null): Answers[K] {
  const changed = results.filter((r) => r.status === 'fulfilled' && r.value).length;
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    const counts = { [key]: changed, matched, failed: results.filter((r) => r.status === 'rejected').length } as BulkCounts;
    throw new PartialWrite(failure.reason, counts);
  }
  return { [key]: changed, matched, skipped: results.length - changed, complete: nextCursor === null, next_cursor: nextCursor } as Answers[K];
}
