import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/define';
import { ExpressionBuilder } from '../../filter/expression';
import { itemKey } from '../../keys';
import { DATA_ATTRIBUTE, TABLE_KEY, WRITE_TOKEN_ATTRIBUTE } from '../../table';

export interface FieldsWrite {
  id: string;
  /** Valid values of fields the record's model has, none of them indexed. */
  values: Record<string, unknown>;
  writeToken: string;
  /** ISO time of the write, the record's new _updated_at. */
  now: string;
}

/**
 * Sets each field of a record's data in place, with a version one higher, only if the record
 * exists: one write, no read. Fields it does not name keep what they hold, so two writers
 * setting different fields both keep theirs.
 */
export function setFieldsParams(model: Model, { id, values, writeToken, now }: FieldsWrite): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const set = Object.entries(values).map(([field, value]) => `${x.path([DATA_ATTRIBUTE, field])} = ${x.value(value)}`);
  set.push(
    `${x.name('_updated_at')} = ${x.value(now)}`,
    `${x.name('_version')} = ${x.name('_version')} + ${x.value(1)}`,
    `${x.name(WRITE_TOKEN_ATTRIBUTE)} = ${x.value(writeToken)}`,
  );
  return {
    TableName: settings().TABLE_NAME,
    Key: itemKey(model, id),
    UpdateExpression: `SET ${set.join(', ')}`,
    ConditionExpression: `attribute_exists(${x.name(TABLE_KEY.partitionKey)})`,
    ...x.attributes(),
  };
}
