import type { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { currentCutoff, inTime } from '../../invocation';
import { LIMITS } from '../../limits';
import type { Model } from '../../models/model';
import { attemptError, settledByCaller } from '../attempts';
import { OutcomeUnknown, StoreError } from '../errors';
import type { Item } from '../read/query';
import { mayHaveApplied } from '../sdk-errors';
import { db } from '../client';
import { CREATED_ATTRIBUTE, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../table';
import { currentItem, isConditionFailure } from './write-token';

/** What the item as stored now says of a write whose answer was lost. */
export type Verdict =
  /** One of the write's copies landed; the item as stored (undefined once a delete landed). */
  | { kind: 'applied'; item?: Item }
  /** None landed, and none can any more: the item moved on under another writer. */
  | { kind: 'not_applied' }
  /** None landed yet, and one still could. */
  | { kind: 'pending' }
  /** The item no longer tells: another writer changed it after a copy may have landed. */
  | { kind: 'unknown' };

export interface DoubtfulWrite {
  model: Model;
  id: string;
  judge(item: Item | undefined): Verdict;
  /**
   * Sends one more copy of the write under the same precondition, so that at most one copy
   * lands; resolves with the item as that copy wrote it.
   */
  resend(): Promise<Item | undefined>;
}

const pause = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** round, 500)));

/**
 * Settles a write that may have reached DynamoDB without its answer coming back (issue 30): a
 * read can never prove that a copy still on its way will not land, so "absent when read back"
 * proves nothing. Every write of a record is conditional on the item as it was before (absent,
 * for a create; its write token, for an update or delete), so at most one copy ever lands, and
 * once the item has moved on no copy can. The item is read until it says which: a copy of this
 * write landed, another writer's did, or none yet, in which case one more copy is sent, which
 * lands (and answers) unless an earlier one beat it. Until the invocation's cutoff; then, and
 * when the item no longer tells, OutcomeUnknown: never an answer that says nothing was written.
 */
export async function settleLateWrite(error: unknown, doubt: DoubtfulWrite): Promise<Exclude<Verdict, { kind: 'pending' | 'unknown' }>> {
  const until = currentCutoff() ?? Date.now() + LIMITS.settleWithoutCutoffMs;
  for (let round = 0; ; round++) {
    let verdict: Verdict | undefined;
    try {
      verdict = doubt.judge(await currentItem(doubt.model, doubt.id));
    } catch {
      verdict = undefined;
    }
    if (verdict?.kind === 'applied' || verdict?.kind === 'not_applied') return verdict;
    if (verdict?.kind === 'unknown' || Date.now() >= until) throw new OutcomeUnknown(doubt.id, error);
    if (verdict === undefined) {
      await pause(round);
      continue;
    }
    try {
      return { kind: 'applied', item: await doubt.resend() };
    } catch (copyError) {
      if (copyError instanceof StoreError) throw copyError;
      // A failed condition means the item moved on: the next look says how. Otherwise the database is struggling: give it a moment.
      if (!isConditionFailure(attemptError(copyError))) await pause(round);
    }
  }
}

/** What the item says of a create: absent, none landed yet; this create's (`ours`), landed; anyone else's, it never will. */
export const judgeCreate =
  (ours: (item: Item) => boolean) =>
  (item: Item | undefined): Verdict => {
    if (!item) return { kind: 'pending' };
    return ours(item) ? { kind: 'applied', item } : { kind: 'not_applied' };
  };

/**
 * What the item says of an update or delete of the record read as `before`, made under
 * unchangedSince(before). Gone: a delete landed (this one or another's, which comes to the same
 * record removed); for an update, nobody can tell whether it landed first. Still as read: none
 * landed yet. Made again (another creation time): the record read was deleted. Changed by
 * another writer: a delete never landed (the record is still there); an update did not if the
 * other write took the very next version, else nobody can tell.
 */
export const judgeChange =
  (before: Item, ours: (item: Item) => boolean, { deletes }: { deletes: boolean }) =>
  (item: Item | undefined): Verdict => {
    const removed: Verdict = deletes ? { kind: 'applied' } : { kind: 'unknown' };
    if (!item) return removed;
    if (ours(item)) return { kind: 'applied', item };
    if (item[WRITE_TOKEN_ATTRIBUTE] === before[WRITE_TOKEN_ATTRIBUTE] && Number(item[VERSION_ATTRIBUTE]) === Number(before[VERSION_ATTRIBUTE]))
      return { kind: 'pending' };
    if (item[CREATED_ATTRIBUTE] !== before[CREATED_ATTRIBUTE]) return removed;
    return deletes || Number(item[VERSION_ATTRIBUTE]) === Number(before[VERSION_ATTRIBUTE]) + 1 ? { kind: 'not_applied' } : { kind: 'unknown' };
  };

/**
 * A change that landed. `stored` is the item as read when its answer was lost and a read told
 * that a copy landed (which copy, and what else the item holds by then, only it says); absent
 * when DynamoDB answered the last copy sent, which the caller made and knows.
 */
export interface Landed {
  stored?: Item;
}

/**
 * Writes a change of the record read as `before` (an update or delete made under
 * unchangedSince(before); `commandOf` makes each copy, an update's with a token of its own):
 * Landed once a copy landed, which `ours` recognises in the stored item (an update's token), or
 * the record is gone after a delete; false when another writer changed the record first, so
 * that none of this write ever will. OutcomeUnknown when that cannot be told before the cutoff.
 */
export async function changeRecord(
  model: Model,
  before: Item,
  commandOf: () => UpdateCommand | DeleteCommand,
  { ours = () => false, deletes }: { ours?: (item: Item) => boolean; deletes: boolean },
): Promise<Landed | false> {
  const send = async (): Promise<Landed> => {
    await db().send(settledByCaller(commandOf()), inTime());
    return {};
  };
  return conditionalWrite(send, async (cause) => {
    const verdict = await settleLateWrite(cause, {
      model,
      id: before.id as string,
      judge: judgeChange(before, ours, { deletes }),
      resend: async () => {
        await send();
        return undefined;
      },
    });
    return verdict.kind === 'applied' && { stored: verdict.item };
  });
}

/**
 * Sends a conditional write once: what `send` makes of its answer when it applied, false when its
 * condition failed, the failure itself when no attempt reached DynamoDB, and `settle`'s word on a
 * failure that may have.
 */
export async function conditionalWrite<T extends object>(send: () => Promise<T>, settle: (cause: unknown) => Promise<T | false>): Promise<T | false> {
  try {
    return await send();
  } catch (error) {
    const { cause, inDoubt } = failureOf(error);
    if (inDoubt) return settle(cause);
    if (isConditionFailure(cause)) return false;
    throw cause;
  }
}

/** A write's failure as the SDK threw it, and whether it needs settling: only if some attempt may have reached DynamoDB. */
export const failureOf = (error: unknown): { cause: unknown; inDoubt: boolean } => ({ cause: attemptError(error), inDoubt: mayHaveApplied(error) });
