import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import { inTime } from '../../../invocation';
import type { Model } from '../../../models/model';
import { settledByCaller } from '../../attempts';
import { db } from '../../client';
import { InvalidRecord, OutcomeUnknown, PartialWrite } from '../../errors';
import { ExpressionBuilder } from '../../filter/expression';
import { MATCH_ALL } from '../../filter/ast';
import { compileFilter } from '../../filter/compile';
import { withinReach } from '../../filter/reach';
import { itemKey } from '../../keys';
import type { Changes } from '../../operators/changes';
import { compileChanges, type CompiledChanges } from '../../operators/compile';
import { TABLE_KEY, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../../table';
import { conditionalWrite } from '../../write/late-write';
import { currentItem, newWriteToken } from '../../write/write-token';
import { entityTag } from '../../write/entity-tag';
import type { Item } from '../../read/query';
import { writeStamp } from './params';

/**
 * The compiled changes of record `id` as one UpdateItem: their SET and REMOVE, the write stamp,
 * and their condition beside "the record exists" and, for a caller held to its own records,
 * "the caller owns it" (shared/store/filter/reach.ts): the rule costs no read. Not conditional on
 * anything read: DynamoDB applies it to the record as it is when the write arrives. Its answer
 * holds what it set (UPDATED_NEW, no read and no capacity of its own), the new version among
 * them, for the ETag.
 */
export function inPlaceParams(model: Model, id: string, x: ExpressionBuilder, compiled: CompiledChanges, writeToken: string, now: string): UpdateCommandInput {
  const set = [...compiled.set, ...writeStamp(x, writeToken, now)];
  const remove = compiled.remove.length > 0 ? ` REMOVE ${compiled.remove.join(', ')}` : '';
  const owned = withinReach(model, MATCH_ALL);
  const condition = [`attribute_exists(${x.name(TABLE_KEY.partitionKey)})`, owned === MATCH_ALL ? undefined : compileFilter(owned, x), compiled.condition];
  return {
    TableName: settings().TABLE_NAME,
    Key: itemKey(model, id),
    UpdateExpression: `SET ${set.join(', ')}${remove}`,
    ConditionExpression: condition.filter((part) => part !== undefined).join(' AND '),
    ReturnValues: 'UPDATED_NEW',
    ...x.attributes(),
  };
}

/**
 * An update of one record by id at DynamoDB's minimum cost: one conditional UpdateItem, no read,
 * when the changes compile (shared/store/operators/compile.ts). Contention cannot fail it:
 * DynamoDB applies concurrent ones one after another. When applied, the record's new entity tag
 * (its version from the write's answer, or from the read that settled it); false when it could
 * not be stated so, or its condition failed (the record is missing, or the model refuses the
 * result): the caller's read tells which. A lost answer is settled by one read: the record
 * holding this write's token proves it applied; any other token proves nothing (the write was
 * not conditional on a token, so a copy on its way may still land), hence OutcomeUnknown, counted
 * as one record in doubt.
 */
export async function updatedInPlace(model: Model, id: string, changes: Changes): Promise<{ etag?: string } | false> {
  const x = new ExpressionBuilder();
  // A value its field refuses is the read path's to answer: 422 only when a record matches.
  const compiled = await compileChanges(changes, x, model).catch((error: unknown) => {
    if (error instanceof InvalidRecord) return undefined;
    throw error;
  });
  if (!compiled) return false;
  const writeToken = newWriteToken();
  const command = new UpdateCommand(inPlaceParams(model, id, x, compiled, writeToken, new Date().toISOString()));
  try {
    const written = await conditionalWrite(
      async () => ({ item: (await db().send(settledByCaller(command), inTime())).Attributes as Item | undefined }),
      async (cause) => {
        const stored = await currentItem(model, id).catch(() => undefined);
        if (stored?.[WRITE_TOKEN_ATTRIBUTE] === writeToken) return { item: stored };
        // As a bulk update counts a record in doubt: matched (a write can only land on a record that exists), neither updated nor failed.
        throw new PartialWrite(new OutcomeUnknown(id, cause), { updated: 0, matched: 1, failed: 0, unknown: 1 });
      },
    );
    // The write is done whatever its answer holds: a tag only from the version it shows.
    return written && { etag: written.item?.[VERSION_ATTRIBUTE] === undefined ? undefined : entityTag(written.item) };
  } catch (error) {
    // A result DynamoDB cannot store (more than 38 digits, an item over 400 KB) is refused with
    // nothing written: the read path answers it in the model's words (422, 413).
    if ((error as Error).name === 'ValidationException') return false;
    throw error;
  }
}
