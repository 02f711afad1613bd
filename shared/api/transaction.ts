import type * as z from 'zod';
import type { Operation } from '../contract';
import { runId, newId } from '../store/keys';
import { transactRecords } from '../store/actions/transact/transact';
import type { TransactOperation } from '../store/types';
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
  const settled = operations.map((op, i): TransactOperation => {
    const model = modelNamed(op.model, op.op !== 'check');
    if (op.op !== 'create') return { ...op, model };
    return { ...op, model, id: op.id ?? (keyRun ? runId(keyRun, i) : newId()) };
  });
  const answer: z.infer<typeof transactionAnswerSchema> = await transactRecords({ operations: settled }, { keyRun });
  return { data: answer };
};
