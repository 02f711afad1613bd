import type { PutCommandInput, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Item } from '../../read/query';
import { TABLE_KEY } from '../../table';

/** Writes a new item; an existing id is never overwritten. */
export const putParams = (item: Item): PutCommandInput => ({
  TableName: settings().TABLE_NAME,
  Item: item,
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
});

/** Writes a batch of new items in one transaction: all of them, or none if one id exists. */
export const batchParams = (items: ReadonlyArray<Item>): TransactWriteCommandInput => ({
  TransactItems: items.map((item) => ({ Put: putParams(item) })),
});
