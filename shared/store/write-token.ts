import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, type GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import type { Model } from '../models/define';
import { db } from './client';
import { itemKey } from './keys';
import type { Item } from './query';
import { WRITE_TOKEN_ATTRIBUTE } from './table';
import { inTime } from '../deadline';
import { OutcomeUnknown } from './errors';
import { mayHaveApplied } from './sdk-errors';

/**
 * Every write stamps the item with a token of its own (WRITE_TOKEN_ATTRIBUTE, never shown).
 * When the SDK retries a write whose answer was lost (a reset or timeout after DynamoDB applied
 * it), the retry's condition fails against the write itself; finding the token tells "my write
 * landed" apart from "someone else's did".
 */
// randomUUID draws from a cached entropy pool: a fraction of randomBytes' cost per call.
export const newWriteToken = (): string => randomUUID();

/**
 * The token of a write made by a bulk operation: the operation's own token first, so that the
 * same resume cursor sent twice (a client retrying a lost answer) finds the records that
 * operation already wrote and writes none of them twice.
 */
export const operationWriteToken = (operation: string): string => `${operation}.${randomUUID()}`;

/** Whether the item's last write was made by this bulk operation. */
export const writtenBy = (item: Item, operation: string): boolean => String(item[WRITE_TOKEN_ATTRIBUTE] ?? '').startsWith(`${operation}.`);

/** A write refused by its condition: a single write's, or one of a transaction's (which then wrote nothing). */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'));

/** A condition failure on a retried attempt may be the request's own earlier attempt. */
export const wasRetried = (error: unknown): boolean => ((error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1) > 1;

/** The strongly consistent read of a record's item as stored now. */
export const currentItemParams = (model: Model, id: string): GetCommandInput => ({
  TableName: settings().TABLE_NAME,
  Key: itemKey(model, id),
  ConsistentRead: true,
});

/** The item as stored now, or undefined. */
export async function currentItem(model: Model, id: string): Promise<Item | undefined> {
  const { Item } = await db().send(new GetCommand(currentItemParams(model, id)), inTime());
  return Item as Item | undefined;
}

/**
 * Whether a failed write was applied all the same: refused by its condition on a retried
 * attempt (the request's own earlier attempt landed), or failed after it may have reached
 * DynamoDB (sdk-errors.ts mayHaveApplied): then the item is read back and `applied` says from it.
 * When that read fails too, nobody can tell: OutcomeUnknown, never an answer that says
 * nothing was written.
 */
export async function settledDespite(
  error: unknown,
  model: Model,
  id: string,
  applied: (item: Item | undefined) => boolean,
  { keyed = false } = {},
): Promise<boolean> {
  // A keyed write (an Idempotency-Key's run) may meet an earlier run's write even on its first attempt.
  const retriedIntoItself = isConditionFailure(error) && (keyed || wasRetried(error));
  if (!retriedIntoItself && !mayHaveApplied(error)) return false;
  let item: Item | undefined;
  try {
    item = await currentItem(model, id);
  } catch {
    throw new OutcomeUnknown(id, error);
  }
  return applied(item);
}

/** Whether a failed write of `writeToken` was applied all the same (settledDespite). */
export const landed = (error: unknown, model: Model, id: string, writeToken: unknown): Promise<boolean> =>
  settledDespite(error, model, id, (item) => item?.[WRITE_TOKEN_ATTRIBUTE] === writeToken);
