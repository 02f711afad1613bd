import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/model';
import { expiryClauses } from '../../expiry/ttl';
import { ExpressionBuilder } from '../../filter/expression';
import { itemKey } from '../../keys';
import { DATA_ATTRIBUTE, TABLE_KEY } from '../../table';
import { writeStamp, type UpdateWrite } from '../update/params';

/** A write of some fields of record `id`: valid values of fields its model has, none of them indexed. */
export type FieldsWrite = Pick<UpdateWrite, 'writeToken' | 'now'> & { id: string; values: Record<string, unknown> };

/**
 * Sets each field of a record's data in place, with a version one higher, only if the record
 * exists: one write, no read. Fields it does not name keep what they hold, so two writers
 * setting different fields both keep theirs.
 */
export function setFieldsParams(model: Model, { id, values, writeToken, now }: FieldsWrite): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const set = Object.entries(values).map(([field, value]) => `${x.path([DATA_ATTRIBUTE, field])} = ${x.value(value)}`);
  set.push(...writeStamp(x, writeToken, now));
  // Setting the ttl field moves the item's expiry with it.
  if (model.ttl !== undefined && Object.hasOwn(values, model.ttl)) set.push(...expiryClauses(model, values, x).set);
  return {
    TableName: settings().TABLE_NAME,
    Key: itemKey(model, id),
    UpdateExpression: `SET ${set.join(', ')}`,
    ConditionExpression: `attribute_exists(${x.name(TABLE_KEY.partitionKey)})`,
    ...x.attributes(),
  };
}
