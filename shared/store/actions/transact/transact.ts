import { createHash, randomUUID } from 'node:crypto';
import { IdempotentParameterMismatchException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { currentCutoff, inTime } from '../../../invocation';
import { LIMITS } from '../../../limits';
import { db } from '../../client';
import { InvalidRecord, OutcomeUnknown, RecordBusy, TransactionRefused, type RefusalReason } from '../../errors';
import { modelLayout } from '../../layout/layout';
import { toRecord } from '../../read/projection';
import { checkAgainst } from '../../../models/validate';
import { applyChanges } from '../../operators/apply';
import { DATA_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../../table';
import type { ActionOptions, TransactAnswer, TransactRequest, TransactResult } from '../../types';
import { failureOf } from '../../write/late-write';
import { currentItem, newWriteToken, rememberedAfter } from '../../write/write-token';
import { reached } from '../../reach';
import { reaches } from '../../filter/reach';
import { transactParams, type TransactStep } from './params';
import { checkedStep, checkedSteps, refuseRepeatedRecords, underOperation } from './steps';

/**
 * DynamoDB's ClientRequestToken (at most 36 characters): under an Idempotency-Key the key's run
 * names it, so a retried run whose first answer was lost sends the very same transaction, which
 * DynamoDB applies once; otherwise one of its own, so that this request's copies are.
 */
const requestTokenOf = (operation: string | undefined) =>
  operation === undefined ? randomUUID() : createHash('sha256').update(operation).digest('hex').slice(0, 32);

const pause = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20 * 2 ** round, 250)));

/**
 * The string fields of a cancellation's old item, enough to tell its owner: it comes in
 * DynamoDB's own attribute form, as the document client converts answers, not exceptions.
 */
const storedStrings = (item: NonNullable<CancellationReason['Item']>) => ({
  [DATA_ATTRIBUTE]: Object.fromEntries(Object.entries(item[DATA_ATTRIBUTE]?.M ?? {}).map(([field, value]) => [field, value.S])),
});

/** Why the step was refused, from its cancellation reason: a failed condition with no old item means the record is missing. */
function refusalOf(step: TransactStep, reason: CancellationReason): RefusalReason | undefined {
  if (reason.Code === 'ConditionalCheckFailed') {
    if (step.op === 'create') return 'exists';
    // Another owner's record is as missing to this caller as one never made.
    return reason.Item === undefined || !reaches(step.model, storedStrings(reason.Item)) ? 'missing' : 'condition_failed';
  }
  // DynamoDB's words for an item grown past 400 KB by an update.
  if (reason.Code === 'ValidationError' && /size/i.test(reason.Message ?? '')) return 'too_large';
  return undefined;
}

const idOf = (step: TransactStep) => (step.op === 'create' ? (step.item.id as string) : step.id);

/**
 * Sends the transaction until DynamoDB says what became of it. Cancelled for an operation's
 * sake: TransactionRefused naming it. Cancelled only because another transaction held one of its
 * items (TransactionConflict): nothing was written, so it is sent again, until the cutoff, then
 * RecordBusy. A copy whose answer was lost is sent again under the same ClientRequestToken,
 * which DynamoDB applies at most once; still in doubt at the cutoff, OutcomeUnknown.
 */
async function send(steps: ReadonlyArray<TransactStep>, command: () => TransactWriteCommand, until: number): Promise<void> {
  // Once a copy may have landed, no later failure says that nothing was written.
  let doubt: unknown;
  for (let round = 0; ; round++) {
    try {
      await db().send(command(), inTime());
      return;
    } catch (error) {
      const { cause, inDoubt } = failureOf(error);
      // Only a keyed run's token is ever sent twice with other actions: by a later run of the key
      // (its updates read records the first one changed), and DynamoDB keeps a token only for a
      // transaction it applied. So the key's transaction was applied, once.
      if (cause instanceof IdempotentParameterMismatchException) return;
      if (cause instanceof TransactionCanceledException) {
        // Cancelled: this copy was refused, and no earlier one landed (its token would have answered).
        const reasons = cause.CancellationReasons ?? [];
        for (const [i, step] of steps.entries()) {
          const refusal = reasons[i] && refusalOf(step, reasons[i]);
          if (refusal) throw new TransactionRefused(i, refusal, step.model.name, idOf(step));
        }
        const busy = reasons.findIndex((r) => r.Code === 'TransactionConflict');
        if (busy < 0) throw cause;
        if (Date.now() >= until) throw doubt === undefined ? new RecordBusy(idOf(steps[busy])) : new OutcomeUnknown(idOf(steps[0]), doubt);
      } else {
        if (inDoubt) doubt = cause;
        if (doubt === undefined) throw cause;
        if (Date.now() >= until) throw new OutcomeUnknown(idOf(steps[0]), doubt);
      }
      await pause(round);
    }
  }
}

/** What each operation did; an update's record as read right after the transaction. */
async function resultOf(step: TransactStep): Promise<TransactResult> {
  switch (step.op) {
    case 'create':
      return { op: 'create', record: toRecord(step.item) };
    case 'update': {
      const item = await currentItem(step.model, step.id);
      return { op: 'update', record: item ? toRecord(item) : { id: step.id } };
    }
    case 'delete':
      return { op: 'delete', id: step.id, deleted: true };
    case 'check':
      return { op: 'check', id: step.id, check: true };
  }
}

/**
 * Applies every operation or none, as one TransactWriteItems across any models. Each operation
 * is checked first (its model's layout, its data or values, its filters; every problem of every
 * operation in one answer), so nothing is sent that DynamoDB would have to refuse for our sake.
 */
export async function transactRecords(request: TransactRequest, { keyRun }: ActionOptions = {}): Promise<TransactAnswer> {
  // Each operation's model as its caller reaches it: its keys, its filters and a create's data within that reach.
  const operations = request.operations.map((op) => ({ ...op, model: reached(op.model, op.reach) }));
  refuseRepeatedRecords(operations.map((o) => ({ model: o.model.name, id: o.id })));
  await Promise.all([...new Set(operations.map((o) => o.model))].map((model) => modelLayout(model)));
  const operation = keyRun?.operation;
  // A keyed run's copies are the first run's to the byte (DynamoDB compares them under one token): its time and tokens come from the run.
  const now = new Date(keyRun?.since ?? Date.now()).toISOString();
  const writeTokenOf = (i: number) => (operation === undefined ? newWriteToken() : `${operation}.${i}`);
  const tokens = operations.map((_, i) => writeTokenOf(i));
  const keyRuns = operation === undefined ? undefined : rememberedAfter(undefined, operation);
  const until = currentCutoff() ?? Date.now() + LIMITS.settleWithoutCutoffMs;
  for (;;) {
    const steps = await checkedSteps(operations.map((op, i) => checkedStep(op.model, op, i, { now, writeToken: tokens[i], keyRuns })));
    const params = transactParams({ steps, requestToken: requestTokenOf(operation), writeTokenOf: (i) => tokens[i], now });
    try {
      await send(steps, () => new TransactWriteCommand(params), until);
      return { results: await Promise.all(steps.map(resultOf)) };
    } catch (error) {
      if (!(error instanceof TransactionRefused && error.reason === 'condition_failed')) throw error;
      const step = steps[error.index];
      if (step.op !== 'update') throw error;
      if (!(await movedOn(step, error))) throw error;
      if (Date.now() >= until) throw new RecordBusy(step.id);
    }
  }
}

/**
 * Why an update's condition failed, told by its record as it is now: another writer changed the
 * record its new data was made from (true: the transaction is made again from a fresh read), it
 * was deleted since (TransactionRefused: missing), the model refuses what the update would make
 * of it (InvalidRecord, 422, at the operation's path); false: its filters do not match.
 */
async function movedOn(step: Extract<TransactStep, { op: 'update' }>, refusal: TransactionRefused): Promise<boolean> {
  const now = await currentItem(step.model, step.id);
  if (!now || !reaches(step.model, now)) throw new TransactionRefused(refusal.index, 'missing', step.model.name, step.id);
  if (step.read) return now[WRITE_TOKEN_ATTRIBUTE] !== step.read[WRITE_TOKEN_ATTRIBUTE];
  const at = ['operations', refusal.index];
  const changed = await underOperation(at, async () => applyChanges(now[DATA_ATTRIBUTE] as Record<string, unknown>, step.changes));
  const result = await checkAgainst(step.model.schema, changed, [...at, 'values']);
  if (!result.value) throw new InvalidRecord(result.details);
  return false;
}
