import type * as z from 'zod';
import type { Operation } from '../contract';
import { runId, newId } from '../store/keys';
import { transactRecords } from '../store/actions/transact/transact';
import type { TransactOperation } from '../store/types';
import { reachOf } from '../access/rules';
import { checkWellFormed, modelNamed, parseBody } from './record-operation';
import type { transactionAnswerSchema } from './responses';
import { transactionRequest } from './requests/transaction';

/**
 * A transaction across any models: each operation's model is found as a record function finds
 * its own (a hidden one is unknown_model; a read-only one takes a check, never a write), and a
 * create without an id gets one, from the Idempotency-Key's run when there is one, so that a
 * retried run sends the same transaction.
 */
export const transactionOperation: Operation = async (request) => {
  checkWellFormed(request.body);
  const { operations } = parseBody(transactionRequest, request.body);
  const { keyRun } = request;
  // One after another, so that the first operation naming a model it may not use is the one refused.
  const settled: TransactOperation[] = [];
  for (const [i, op] of operations.entries()) {
    const model = await modelNamed(op.model, op.op !== 'check');
    // Each operation within what its caller reaches of its own model.
    const reach = request.caller ? reachOf(model, request.caller) : undefined;
    settled.push(op.op === 'create' ? { ...op, model, reach, id: op.id ?? (keyRun ? runId(keyRun, i) : newId()) } : { ...op, model, reach });
  }
  const answer: z.infer<typeof transactionAnswerSchema> = await transactRecords({ operations: settled }, { keyRun });
  return { data: answer };
};
