import type { DeleteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/model';
import type { FilterNode } from '../../filter/ast';
import { compileFilter } from '../../filter/compile';
import { ExpressionBuilder } from '../../filter/expression';
import { itemKey } from '../../keys';
import type { Item } from '../../read/query';
import { unchangedSince } from '../../write/write-token';

/**
 * Deletes one record only if it still matches the filter and nothing was written to it since it
 * was read (unchangedSince), decided atomically by DynamoDB: a copy of the delete that arrives
 * late never removes a record another writer changed after it was read, so an answer that says
 * the record stays is true for good. The filter is compiled once per request.
 */
export function deleteParams(model: Model, filter: FilterNode): (item: Item) => DeleteCommandInput {
  const shared = new ExpressionBuilder();
  const matches = compileFilter(filter, shared);
  return (item) => {
    const x = shared.copy();
    return {
      TableName: settings().TABLE_NAME,
      Key: itemKey(model, item.id as string),
      ConditionExpression: [matches, unchangedSince(x, item)].filter(Boolean).join(' AND '),
      ...x.attributes(),
    };
  };
}
