import type { DeleteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/define';
import type { FilterNode } from '../../filter/ast';
import { compileFilter } from '../../filter/compile';
import { ExpressionBuilder } from '../../filter/expression';
import { itemKey } from '../../keys';
import { TABLE_KEY } from '../../table';

/**
 * Deletes one record only if it exists and still matches the filter, decided atomically by
 * DynamoDB. The condition is compiled once per request and shared by every record's delete.
 */
export function deleteParams(model: Model, filter: FilterNode): (id: string) => DeleteCommandInput {
  const x = new ExpressionBuilder();
  const condition = [`attribute_exists(${x.name(TABLE_KEY.partitionKey)})`, compileFilter(filter, x)].filter(Boolean).join(' AND ');
  const shared = { TableName: settings().TABLE_NAME, ConditionExpression: condition, ...x.attributes() };
  return (id) => ({ ...shared, Key: itemKey(model, id) });
}
