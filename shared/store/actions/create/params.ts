import type { PutCommandInput, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/model';
import { epochSeconds } from '../../expiry/ttl';
import type { Item } from '../../read/query';
import { TABLE_KEY, TTL_ATTRIBUTE } from '../../table';

/**
 * Writes a new item; an existing id is never overwritten, unless the record there has expired
 * (a model with a ttl field): an expired record is gone to every request, so its id is free to
 * take before DynamoDB's TTL deletes it. `now`: epoch seconds, fixed by a caller that must make
 * the same params twice (a transaction's ClientRequestToken).
 */
export const putParams = (item: Item, model?: Model, now = epochSeconds()): PutCommandInput => ({
  TableName: settings().TABLE_NAME,
  Item: item,
  ...(model?.ttl === undefined
    ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey } }
    : {
        ConditionExpression: 'attribute_not_exists(#pk) OR #ttl <= :now',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': now },
      }),
});

/** Writes a batch of new items in one transaction: all of them, or none if one id exists. */
export const batchParams = (items: ReadonlyArray<Item>, model?: Model): TransactWriteCommandInput => ({
  TransactItems: items.map((item) => ({ Put: putParams(item, model) })),
});
