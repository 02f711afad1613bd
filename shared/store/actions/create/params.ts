import type { DeleteCommandInput, PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Item } from '../../query';
import { TABLE_KEY } from '../../table';

/** Writes a new item; an existing id is never overwritten. */
export const putParams = (item: Item): PutCommandInput => ({
  TableName: settings().TABLE_NAME,
  Item: item,
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
});

/** Removes an item this request created, unless someone wrote it since (version and creation time as written). */
export const undoParams = (item: Item): DeleteCommandInput => ({
  TableName: settings().TABLE_NAME,
  Key: { [TABLE_KEY.partitionKey]: item[TABLE_KEY.partitionKey], [TABLE_KEY.sortKey]: item[TABLE_KEY.sortKey] },
  ConditionExpression: '#v = :v AND #c = :c',
  ExpressionAttributeNames: { '#v': '_version', '#c': '_created_at' },
  ExpressionAttributeValues: { ':v': 1, ':c': item._created_at },
});
