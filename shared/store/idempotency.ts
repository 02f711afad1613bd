import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../deadline';
import { LIMITS } from '../limits';
import { db } from './client';
import { TABLE_KEY, TTL_ATTRIBUTE } from './table';
import { isConditionFailure } from './write-token';

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
  /** This request owns the key: run it, then `keepAnswer` or `releaseKey`. */
  | { kind: 'claimed'; token: string }
  /** The key finished with another body. */
  | { kind: 'mismatch' }
  /** The key's first request is still running (or died less than its lease ago). */
  | { kind: 'in_flight' }
  /** The key finished; its answer, or only its status when the answer was too large to keep. */
  | { kind: 'done'; answer?: KeptAnswer; status: number };

interface KeyItem {
  fp: string;
  st: 'running' | 'done';
  /** Epoch ms until which a running claim is its owner's: the owner's deadline. */
  lease: number;
  token: string;
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

/**
 * Takes the key for this request, or says why not. A claim whose owner's lease has passed (its
 * function was stopped before it could answer or release) is taken over: nothing it did was
 * acknowledged, and its writes were conditional, so running the request again is safe.
 */
export async function claimKey(scope: string, idempotencyKey: string, fingerprint: string, leaseUntil: number): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = randomUUID();
    const now = Date.now();
    try {
      await db().send(
        new PutCommand({
          TableName: settings().TABLE_NAME,
          Item: keyItem(scope, idempotencyKey, fingerprint, token, { st: 'running', lease: leaseUntil }),
          ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :nowSeconds OR (#st = :running AND #lease < :now)',
          ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#ttl': TTL_ATTRIBUTE, '#st': 'st', '#lease': 'lease' },
          ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':running': 'running', ':now': now },
        }),
        inTime(),
      );
      return { kind: 'claimed', token };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: key(scope, idempotencyKey), ConsistentRead: true }), inTime());
    const held = Item as KeyItem | undefined;
    // Gone or expired between the two calls: claim again.
    if (!held || (held.st === 'running' && held.lease < Date.now())) continue;
    if (held.fp !== fingerprint) return { kind: 'mismatch' };
    if (held.st === 'running') return { kind: 'in_flight' };
    return { kind: 'done', answer: held.answer, status: held.status ?? 200 };
  }
  return { kind: 'in_flight' };
}

const ownClaim = {
  ConditionExpression: '#token = :token',
  ExpressionAttributeNames: { '#token': 'token' },
};

/**
 * Keeps the answer under the key, if this request still owns it. An answer too large to keep
 * keeps only its status: the key still stops a second run.
 */
export async function keepAnswer(scope: string, idempotencyKey: string, fingerprint: string, token: string, answer: KeptAnswer): Promise<void> {
  const fits = Buffer.byteLength(answer.body, 'utf8') <= LIMITS.maxReplayedAnswerBytes;
  try {
    await db().send(
      new PutCommand({
        TableName: settings().TABLE_NAME,
        Item: keyItem(scope, idempotencyKey, fingerprint, token, { st: 'done', lease: 0, status: answer.status, ...(fits ? { answer } : {}) }),
        ...ownClaim,
        ExpressionAttributeValues: { ':token': token },
      }),
      inTime(),
    );
  } catch (error) {
    // Another request took the key over after our lease: its answer stands.
    if (!isConditionFailure(error)) throw error;
  }
}

/** Gives the key back after an answer that wrote nothing (a 5xx), so a retry runs again. */
export async function releaseKey(scope: string, idempotencyKey: string, token: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({ TableName: settings().TABLE_NAME, Key: key(scope, idempotencyKey), ...ownClaim, ExpressionAttributeValues: { ':token': token } }),
      inTime(),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
