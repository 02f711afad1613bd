import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/model';
import { expiryClauses } from '../../expiry/ttl';
import { compileFilter } from '../../filter/compile';
import { ExpressionBuilder } from '../../filter/expression';
import { unexpired } from '../../filter/reach';
import { indexAttributes, itemKey } from '../../keys';
import type { Item } from '../../read/query';
import { DATA_ATTRIBUTE, KEY_RUNS_ATTRIBUTE, UPDATED_ATTRIBUTE, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../../table';
import { unchangedSince, writerStamp } from '../../write/write-token';

export interface UpdateWrite {
  /** The item as read: its version is the write's condition. */
  item: Item;
  /** The record's new data, valid for its model. */
  data: Record<string, unknown>;
  writeToken: string;
  /** ISO time of the write, the record's new _updated_at. */
  now: string;
  /** Under an Idempotency-Key: the keyed runs the record remembers after this write (rememberedAfter). */
  keyRuns?: ReadonlyArray<string>;
}

/** What every write of a record sets beside its data: the time, a version one higher, the write's token and who makes it. */
export const writeStamp = (x: ExpressionBuilder, writeToken: string, now: string): string[] => [
  `${x.name(UPDATED_ATTRIBUTE)} = ${x.value(now)}`,
  `${x.name(VERSION_ATTRIBUTE)} = ${x.name(VERSION_ATTRIBUTE)} + ${x.value(1)}`,
  ...Object.entries({ [WRITE_TOKEN_ATTRIBUTE]: writeToken, ...writerStamp() }).map(([attribute, value]) => `${x.name(attribute)} = ${x.value(value)}`),
];

/**
 * Writes a record's new data, its index keys, its expiry, a version one higher and the write's
 * token, only if nothing was written since it was read (unchangedSince) and, on a model with a
 * ttl field, only while it has not expired since (an expired record is never revived): a
 * concurrent change is never overwritten, and a copy of this write that arrives late never
 * lands over a later one.
 */
export function updateParams(model: Model, { item, data, writeToken, now, keyRuns }: UpdateWrite): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const id = item.id as string;
  const expiry = expiryClauses(model, data, x);
  const set = [`${x.name(DATA_ATTRIBUTE)} = ${x.value(data)}`, ...writeStamp(x, writeToken, now), ...expiry.set];
  if (keyRuns) set.push(`${x.name(KEY_RUNS_ATTRIBUTE)} = ${x.value(keyRuns)}`);
  // Both keys of every slot: a record stored before its field was indexed has no partition key there yet.
  for (const [attribute, value] of Object.entries(indexAttributes(model, id, data))) set.push(`${x.name(attribute)} = ${x.value(value)}`);
  const condition = [unchangedSince(x, item), model.ttl === undefined ? undefined : compileFilter(unexpired(), x)];
  return {
    TableName: settings().TABLE_NAME,
    Key: itemKey(model, id),
    UpdateExpression: `SET ${set.join(', ')}${expiry.remove.length > 0 ? ` REMOVE ${expiry.remove.join(', ')}` : ''}`,
    ConditionExpression: condition.filter((part) => part !== undefined).join(' AND '),
    ...x.attributes(),
  };
}
