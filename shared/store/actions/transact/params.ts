import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../config';
import type { Model } from '../../../models/model';
import type { FilterNode } from '../../filter/ast';
import type { Changes } from '../../operators/changes';
import { compileFilter } from '../../filter/compile';
import { ExpressionBuilder } from '../../filter/expression';
import { itemKey } from '../../keys';
import type { Item } from '../../read/query';
import { TABLE_KEY } from '../../table';
import { epochSeconds } from '../../expiry/ttl';
import { putParams } from '../create/params';
import { writeStamp } from '../update/params';

/**
 * An update's changes as one UpdateItem's clauses and the condition under which its model takes
 * the result, on the builder that holds their placeholders (shared/store/operators/compile.ts;
 * or, for changes that read the record first, its whole data under unchangedSince).
 */
export interface UpdateClauses {
  x: ExpressionBuilder;
  set: ReadonlyArray<string>;
  remove: ReadonlyArray<string>;
  condition?: string;
}

/** One operation of a transaction, checked against its model and ready to be sent. */
export type TransactStep =
  | { op: 'create'; model: Model; item: Item }
  /** `read`: the item the clauses were made from, when they could not be applied without it. */
  | { op: 'update'; model: Model; id: string; clauses: UpdateClauses; filter: FilterNode; changes: Changes; read?: Item }
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
 * The record must exist, match the step's filter and meet `also` (an update's). The old item
 * comes back with a failed condition, to tell a missing record from one that does not match.
 */
function condition(x: ExpressionBuilder, filter: FilterNode, also?: string) {
  const parts = [`attribute_exists(${x.name(TABLE_KEY.partitionKey)})`, compileFilter(filter, x), also].filter((part) => part !== undefined);
  return { ConditionExpression: parts.join(' AND '), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
}

/** The update's clauses with the write's stamp: fields it does not name keep what they hold. */
function updateExpression({ x, set, remove }: UpdateClauses, writeToken: string, now: string): string {
  const all = [...set, ...writeStamp(x, writeToken, now)];
  return `SET ${all.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`;
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
      if (step.op === 'create') return { Put: putParams(step.item, step.model, epochSeconds(Date.parse(now))) };
      const Key = itemKey(step.model, step.id);
      if (step.op === 'update') {
        // The clauses' builder is copied, so that params made twice from one step are the same.
        const clauses = { ...step.clauses, x: step.clauses.x.copy() };
        const UpdateExpression = updateExpression(clauses, writeTokenOf(i), now);
        return { Update: { TableName, Key, UpdateExpression, ...condition(clauses.x, step.filter, clauses.condition), ...clauses.x.attributes() } };
      }
      const x = new ExpressionBuilder();
      const checked = { TableName, Key, ...condition(x, step.filter), ...x.attributes() };
      return step.op === 'delete' ? { Delete: checked } : { ConditionCheck: checked };
    }),
  };
}
