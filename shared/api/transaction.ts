import type * as z from 'zod';
import type { Operation } from '../contract';
import { runId, newId } from '../store/keys';
import { transactRecords } from '../store/actions/transact/transact';
import { underOperation } from '../store/actions/transact/steps';
import type { TransactOperation } from '../store/types';
import { hiddenFor, reachFor } from '../access/caller-rules';
import { shownRecord } from './field-rules/answers';
import { checkDataNames } from './field-rules/load-writes';
import { checkValueNames } from './field-rules/load-values';
import { refuseHiddenNames } from './field-rules/load-reads';
import { checkWellFormed, modelNamed, parseBody } from './record-operation';
import type { transactionAnswerSchema } from './responses';
import { transactionRequest } from './requests/transaction';

type Answer = z.infer<typeof transactionAnswerSchema>;

/**
 * A transaction across any models: each operation's model is found as a record function finds
 * its own (a hidden one is unknown_model; a read-only one takes a check, never a write), and a
 * create without an id gets one, from the Idempotency-Key's run when there is one, so that a
 * retried run sends the same transaction. Each operation names only the fields its model shows
 * the caller and sets no read-only one, and each record answered shows only those.
 */
export const transactionOperation: Operation = async (request) => {
  checkWellFormed(request.body);
  const { operations } = parseBody(transactionRequest, request.body);
  const { keyRun, caller } = request;
  // One after another, so that the first operation naming a model it may not use is the one refused.
  const settled: TransactOperation[] = [];
  const hidden: Array<ReadonlySet<string>> = [];
  for (const [i, op] of operations.entries()) {
    const model = await modelNamed(op.model, op.op !== 'check');
    // What the caller reaches of the operation's model (403 when its credential lacks what a rule
    // needs), before its names are read, as the record routes do.
    const reach = await reachFor(model, caller);
    hidden.push(await hiddenFor(model, caller));
    const at = ['operations', i];
    if (op.op === 'create') await checkDataNames(model, hidden[i], [op.data], () => [...at, 'data'], reach);
    if (op.op === 'update') await underOperation(at, () => checkValueNames(model, hidden[i], { values: op.values }, at));
    if (op.op !== 'create') await refuseHiddenNames(model, hidden[i], op.filters, [...at, 'filters']);
    settled.push(op.op === 'create' ? { ...op, model, reach, id: op.id ?? (keyRun ? runId(keyRun, i) : newId()) } : { ...op, model, reach });
  }
  const answer: Answer = await transactRecords({ operations: settled }, { keyRun });
  const results = answer.results.map((result, i): Answer['results'][number] =>
    'record' in result ? { ...result, record: shownRecord(result.record, hidden[i]) } : result,
  );
  return { data: { results } };
};
