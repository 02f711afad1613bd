import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, type GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import type { Model } from '../../models/define';
import { db } from '../client';
import { itemKey } from '../keys';
import type { Item } from '../read/query';
import { KEY_RUNS_ATTRIBUTE, REQUEST_ATTRIBUTE, SUBJECT_ATTRIBUTE, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../table';
import { currentRequestId, currentSubject, inTime } from '../../invocation';
import { LIMITS } from '../../limits';
import type { ExpressionBuilder } from '../filter/expression';

/**
 * Every write stamps the item with a token of its own (WRITE_TOKEN_ATTRIBUTE, never shown), and
 * every update or delete is conditional on the token it read (unchangedSince). When a write's
 * answer is lost, finding its token tells "my write landed" from "someone else's did", and any
 * other token proves that it never will (shared/store/write/late-write.ts).
 */
// randomUUID draws from a cached entropy pool: a fraction of randomBytes' cost per call.
export const newWriteToken = (): string => randomUUID();

/**
 * Who makes a write, for the change feed (shared/feed/from-stream.ts): the invocation's request
 * and caller, null where there is none, so that an update never leaves an earlier writer's
 * standing on a write it did not make.
 */
export const writerStamp = (): Record<string, string | null> => ({
  [REQUEST_ATTRIBUTE]: currentRequestId() ?? null,
  [SUBJECT_ATTRIBUTE]: currentSubject() ?? null,
});

/**
 * The token of a write made by a bulk operation: the operation's own token first, so that the
 * same resume cursor sent twice (a client retrying a lost answer) finds the records that
 * operation already wrote and writes none of them twice.
 */
export const operationWriteToken = (operation: string): string => `${operation}.${randomUUID()}`;

/** The keyed runs the item remembers (rememberedAfter), oldest first. */
const remembered = (item: Item | undefined): string[] => {
  const runs = item?.[KEY_RUNS_ATTRIBUTE];
  return Array.isArray(runs) ? (runs as string[]) : [];
};

/** Whether the item's last write was made by this operation, or it remembers a keyed run of it (rememberedAfter). */
export const writtenBy = (item: Item, operation: string): boolean =>
  String(item[WRITE_TOKEN_ATTRIBUTE] ?? '').startsWith(`${operation}.`) || remembered(item).includes(operation);

/** A write refused by its condition: a single write's, or one of a transaction's (which then wrote nothing). */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'));

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
 * The condition of every update or delete of a record read as `item`: nothing written since.
 * Tokens are never reused, so once any other write lands this one never can, even if the record
 * is deleted and made again (a version number would come round again). An item stored without
 * a token is held to its version.
 */
export function unchangedSince(x: ExpressionBuilder, item: Item): string {
  const token = item[WRITE_TOKEN_ATTRIBUTE];
  if (token === undefined)
    return `attribute_not_exists(${x.name(WRITE_TOKEN_ATTRIBUTE)}) AND ${x.name(VERSION_ATTRIBUTE)} = ${x.value(item[VERSION_ATTRIBUTE])}`;
  return `${x.name(WRITE_TOKEN_ATTRIBUTE)} = ${x.value(token)}`;
}

/**
 * The keyed runs an item remembers after a write under an Idempotency-Key's `operation`, as the
 * write sets them: this one added, the oldest dropped past LIMITS.rememberedKeyRuns. A run a
 * record remembers is recognised by its retry however many other writers changed the record
 * since (the last write token alone is the last writer's).
 */
export function rememberedAfter(item: Item | undefined, operation: string): string[] {
  const kept = remembered(item).filter((op) => op !== operation);
  return [...kept.slice(Math.max(0, kept.length - LIMITS.rememberedKeyRuns + 1)), operation];
}
