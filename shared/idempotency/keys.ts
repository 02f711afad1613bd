import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { LIMITS } from '../limits';
import { db } from '../store/client';
import { TABLE_KEY, TTL_ATTRIBUTE } from '../store/table';
import { isConditionFailure } from '../store/write/write-token';
import type { KeyRun } from '../store/types';

/**
 * Idempotency keys (the IETF httpapi draft "The Idempotency-Key HTTP Header Field", as Stripe
 * runs them): one item per caller and key, under a partition no model can have (model names
 * start with a letter). The item is claimed before the request runs, holds the first answer
 * once it has run, and expires with the table's TTL after LIMITS.idempotencyKeepSeconds.
 */
const partitionOf = (scope: string) => `_idempotency#${scope}`;

/** An answer as it is replayed: status, headers and the body's text. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim =
  /** This request owns the key: run it as `run`, then `keepAnswer`, `releaseKey` or `leaveUnknown`. */
  | { kind: 'claimed'; token: string; run: KeyRun }
  /** The key finished with another body. */
  | { kind: 'mismatch' }
  /** The key's first request is still running (or died less than its lease ago). */
  | { kind: 'in_flight' }
  /** The key finished; its answer, or only its status when the answer was too large to keep. */
  | { kind: 'done'; answer?: KeptAnswer; status: number };

interface KeyItem {
  fp: string;
  st: 'running' | 'done';
  /** Epoch ms until which a running claim is its owner's: the owner's deadline; 0 once its outcome is unknown. */
  lease: number;
  token: string;
  op: string;
  since: number;
  plan?: string[];
  status?: number;
  answer?: KeptAnswer;
}

const key = (scope: string, idempotencyKey: string) => ({ [TABLE_KEY.partitionKey]: partitionOf(scope), [TABLE_KEY.sortKey]: idempotencyKey });

/** The key's item in a state: the request it was taken for, the claim that holds it, kept until the TTL removes it. */
const keyItem = (scope: string, idempotencyKey: string, fingerprint: string, token: string, state: Omit<KeyItem, 'fp' | 'token'>) => ({
  ...key(scope, idempotencyKey),
  fp: fingerprint,
  token,
  ...state,
  [TTL_ATTRIBUTE]: Math.ceil(Date.now() / 1000) + LIMITS.idempotencyKeepSeconds,
});

/** Writes the key's item only under `condition`; false when the condition failed. */
async function putKey(
  item: Record<string, unknown>,
  condition: Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
): Promise<boolean> {
  try {
    await db().send(new PutCommand({ TableName: settings().TABLE_NAME, Item: item, ...condition }), inTime());
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}

/**
 * Takes the key for this request, or says why not. A claim whose owner's lease has passed (its
 * function was stopped before it could answer) or whose outcome was left unknown is taken over
 * with its operation and first time, so that what that run wrote is recognised, never made twice.
 */
export async function claimKey(scope: string, idempotencyKey: string, fingerprint: string, leaseUntil: number): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = randomUUID();
    const now = Date.now();
    const run: KeyRun = { operation: randomUUID(), since: now };
    const fresh = await putKey(keyItem(scope, idempotencyKey, fingerprint, token, { st: 'running', lease: leaseUntil, op: run.operation, since: run.since }), {
      // None yet, or one whose TTL has passed (DynamoDB removes expired items within days, not at once).
      ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :nowSeconds',
      ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000) },
    });
    if (fresh) return { kind: 'claimed', token, run };
    const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: key(scope, idempotencyKey), ConsistentRead: true }), inTime());
    const held = Item as KeyItem | undefined;
    if (!held) continue;
    if (held.fp !== fingerprint) return { kind: 'mismatch' };
    if (held.st === 'done') return { kind: 'done', answer: held.answer, status: held.status ?? 200 };
    if (held.lease >= Date.now()) return { kind: 'in_flight' };
    const taken: KeyRun = { operation: held.op, since: held.since, ...(held.plan ? { plan: held.plan } : {}) };
    const over = await putKey(
      keyItem(scope, idempotencyKey, fingerprint, token, {
        st: 'running',
        lease: leaseUntil,
        op: taken.operation,
        since: taken.since,
        ...(held.plan ? { plan: held.plan } : {}),
      }),
      {
        ConditionExpression: '#token = :held',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':held': held.token },
      },
    );
    if (over) return { kind: 'claimed', token, run: taken };
  }
  return { kind: 'in_flight' };
}

/** The condition of every write after the claim: this request still holds the key (no one took it over after its lease). */
const heldBy = (token: string) => ({
  ConditionExpression: '#token = :token',
  ExpressionAttributeNames: { '#token': 'token' },
  ExpressionAttributeValues: { ':token': token },
});

/** A key this request holds, and the run it is part of. */
export interface HeldKey {
  scope: string;
  key: string;
  fingerprint: string;
  token: string;
  run: KeyRun;
}

/**
 * Keeps the answer under the key, if this request still holds it (else another took it over
 * after its lease, and that one's answer stands). An answer too large to keep keeps only its
 * status: the key still stops a second run.
 */
export async function keepAnswer(held: HeldKey, answer: KeptAnswer): Promise<void> {
  const fits = Buffer.byteLength(answer.body, 'utf8') <= LIMITS.maxReplayedAnswerBytes;
  const { operation: op, since } = held.run;
  await putKey(
    keyItem(held.scope, held.key, held.fingerprint, held.token, { st: 'done', lease: 0, op, since, status: answer.status, ...(fits ? { answer } : {}) }),
    heldBy(held.token),
  );
}

/**
 * After an answer that says the outcome is unknown (outcome_unknown): the key stays with its
 * operation, free to be taken over at once, so the retry that answer asks for recognises what
 * this run may have written instead of writing it again.
 */
export async function leaveUnknown(held: HeldKey): Promise<void> {
  const { operation: op, since, plan } = held.run;
  await putKey(
    keyItem(held.scope, held.key, held.fingerprint, held.token, { st: 'running', lease: 0, op, since, ...(plan ? { plan: [...plan] } : {}) }),
    heldBy(held.token),
  );
}

/**
 * Keeps the ids a keyed bulk write is about to change with its key, before the first write: a
 * later run of the key (after outcome_unknown, or after the answer could not be kept) works on
 * these and counts the ones already gone as done. Only while this request holds the key; a plan
 * over LIMITS.maxKeptPlanBytes is not kept, and a retry of such a run matches afresh.
 */
export async function keepPlan(held: HeldKey, ids: ReadonlyArray<string>): Promise<void> {
  if (ids.reduce((bytes, id) => bytes + Buffer.byteLength(id, 'utf8') + 3, 0) > LIMITS.maxKeptPlanBytes) return;
  await db().send(
    new UpdateCommand({
      TableName: settings().TABLE_NAME,
      Key: key(held.scope, held.key),
      UpdateExpression: 'SET #plan = :plan',
      ConditionExpression: '#token = :token',
      ExpressionAttributeNames: { '#plan': 'plan', '#token': 'token' },
      ExpressionAttributeValues: { ':plan': [...ids], ':token': held.token },
    }),
    inTime(),
  );
  held.run.plan = ids;
}

/** Gives the key back after an answer that wrote nothing (a 5xx), so a retry runs afresh. */
export async function releaseKey(held: HeldKey): Promise<void> {
  try {
    await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: key(held.scope, held.key), ...heldBy(held.token) }), inTime());
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
