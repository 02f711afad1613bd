import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/define';
import type { FilterNode } from '../../filter/ast';
import { compileFilter } from '../../filter/compile';
import { ExpressionBuilder } from '../../filter/expression';
import { indexPartitionKey, indexSlotOf, indexSortKey, itemKey, shardOf } from '../../keys';
import type { Item } from '../../read/query';
import { DATA_ATTRIBUTE, TABLE_KEY } from '../../table';
import { putParams } from '../create/params';
import { writeStamp } from '../update/params';

/** One operation of a transaction, checked against its model and ready to be sent. */
export type TransactStep =
  | { op: 'create'; model: Model; item: Item }
  /** `set`: valid values of the model's fields; `remove`: fields the record may go without. */
  | { op: 'update'; model: Model; id: string; set: Record<string, unknown>; remove: ReadonlyArray<string>; filter: FilterNode }
  | { op: 'delete' | 'check'; model: Model; id: string; filter: FilterNode };

export interface TransactWrite {
  steps: ReadonlyArray<TransactStep>;
  /** DynamoDB's ClientRequestToken: a copy sent again within 10 minutes is applied once. */
  requestToken: string;
  /** The write token each step's record is stamped with (shared/store/write/write-token.ts). */
  writeTokenOf: (index: number) => string;
  now: string;
}

/**
 * The record must exist and match the step's filter. The old item comes back with a failed
 * condition, to tell a missing record from one that does not match.
 */
function condition(x: ExpressionBuilder, step: { filter: FilterNode }) {
  const exists = `attribute_exists(${x.name(TABLE_KEY.partitionKey)})`;
  const matches = compileFilter(step.filter, x);
  return { ConditionExpression: matches === undefined ? exists : `${exists} AND ${matches}`, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
}

/**
 * Sets and removes fields of the record's data in place, with its index keys (both keys of each
 * slot, as an update writes them: a record stored before its field was indexed has no partition
 * key there yet) and the write's stamp: fields it does not name keep what they hold.
 */
function updateExpression(x: ExpressionBuilder, step: Extract<TransactStep, { op: 'update' }>, writeToken: string, now: string): string {
  const set = Object.entries(step.set).map(([field, value]) => `${x.path([DATA_ATTRIBUTE, field])} = ${x.value(value)}`);
  const changed = [...Object.keys(step.set), ...step.remove];
  for (const field of changed) {
    const slot = indexSlotOf(step.model, field);
    if (!slot) continue;
    set.push(`${x.name(slot.partitionKey)} = ${x.value(indexPartitionKey(step.model, field, shardOf(step.model, step.id)))}`);
    set.push(`${x.name(slot.sortKey)} = ${x.value(indexSortKey(step.set[field], step.id))}`);
  }
  set.push(...writeStamp(x, writeToken, now));
  const remove = step.remove.map((field) => x.path([DATA_ATTRIBUTE, field]));
  return `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`;
}

/**
 * The transaction as one TransactWriteItems, its actions in the operations' order (DynamoDB
 * gives its cancellation reasons in that order): a create is a Put under attribute_not_exists,
 * as a single create is; an update, delete or check holds the record to exist and match.
 */
export function transactParams({ steps, requestToken, writeTokenOf, now }: TransactWrite): TransactWriteCommandInput {
  const TableName = settings().TABLE_NAME;
  return {
    ClientRequestToken: requestToken,
    TransactItems: steps.map((step, i) => {
      if (step.op === 'create') return { Put: putParams(step.item) };
      const x = new ExpressionBuilder();
      const Key = itemKey(step.model, step.id);
      if (step.op === 'update') {
        const UpdateExpression = updateExpression(x, step, writeTokenOf(i), now);
        return { Update: { TableName, Key, UpdateExpression, ...condition(x, step), ...x.attributes() } };
      }
      const checked = { TableName, Key, ...condition(x, step), ...x.attributes() };
      return step.op === 'delete' ? { Delete: checked } : { ConditionCheck: checked };
    }),
  };
}
