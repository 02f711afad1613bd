import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import { inTime } from '../../invocation';
import type { Model } from '../../models/model';
import { db } from '../client';
import type { FilterNode } from '../filter/ast';
import { compileFilter } from '../filter/compile';
import { ExpressionBuilder } from '../filter/expression';
import { itemKey } from '../keys';
import { TABLE_KEY } from '../table';
import type { Item } from './query';

/** Reads one record again, consistently, and only if it still matches the filter: for a retried write. */
export function rereadParams(model: Model, filter: FilterNode, id: string): QueryCommandInput {
  const x = new ExpressionBuilder();
  const key = itemKey(model, id);
  const keyCondition = `${x.name(TABLE_KEY.partitionKey)} = ${x.value(key[TABLE_KEY.partitionKey])} AND ${x.name(TABLE_KEY.sortKey)} = ${x.value(key[TABLE_KEY.sortKey])}`;
  return {
    TableName: settings().TABLE_NAME,
    KeyConditionExpression: keyCondition,
    FilterExpression: compileFilter(filter, x),
    ConsistentRead: true,
    ...x.attributes(),
  };
}

/** The record as stored now (strongly consistent), if it still matches `filter`: for a write that must re-check it. */
export const stillMatching = async (model: Model, filter: FilterNode, id: string): Promise<Item | undefined> =>
  (await db().send(new QueryCommand(rereadParams(model, filter, id)), inTime())).Items?.[0] as Item | undefined;
