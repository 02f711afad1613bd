import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from '../zod';
import { secretSetting } from '../secrets';
import { stringifyExactJson } from '../json/exact-json';
import type { Model } from '../models/define';
import type { AccessPlan } from './plan';
import type { Position } from './query';
import { InvalidCursor } from './errors';
import { partitionKey, shardOf, VALUE_END } from './keys';
import { TABLE_KEY } from './table';

/**
 * Cursors are `<payload>.<hmac>` in base64url. The HMAC makes a hand-edited cursor an InvalidCursor;
 * the payload binds the cursor to its model and to a hash of the filter and order, and holds
 * one position per shard (null once a shard is exhausted).
 */
const payloadSchema = z.strictObject({
  m: z.string(),
  q: z.string(),
  p: z.array(z.union([z.null(), z.record(z.string(), z.string())])),
});

/**
 * Without CURSOR_SECRET a key anyone could derive (the table name's) would let them sign any
 * position. Deployed stacks set CURSOR_SECRET and npm start keeps a random one per data
 * directory (scripts/local/cursor-key.ts); anything else signs with a key of this process only.
 */
const processKey = randomBytes(32).toString('base64url');

async function secret(): Promise<string> {
  return (await secretSetting('CURSOR_SECRET')) || processKey;
}

const sign = async (payload: string) =>
  createHmac('sha256', await secret())
    .update(payload)
    .digest('base64url');

export function queryFingerprint(filters: unknown, orderBy: unknown): string {
  return createHash('sha256')
    .update(stringifyExactJson({ filters: filters ?? {}, orderBy: orderBy ?? null }))
    .digest('base64url')
    .slice(0, 22);
}

export async function encodeCursor(model: Model, fingerprint: string, positions: Position[]): Promise<string | null> {
  if (positions.every((p) => p === null)) return null;
  return sealed({ m: model.name, q: fingerprint, p: positions.map((p) => (p === undefined ? {} : p)) });
}

const refuse = (message: string) => new InvalidCursor(message);

/** The payload of a cursor this service signed for this model and query, or InvalidCursor. */
async function openCursor(cursor: string, model: Model, fingerprint: string): Promise<Record<string, unknown>> {
  if (cursor === '') throw refuse('The cursor is empty; leave cursor out to start from the beginning');
  const [payload, mac, ...rest] = cursor.split('.');
  const expected = Buffer.from(await sign(payload ?? ''));
  const given = Buffer.from(mac ?? '');
  if (rest.length > 0 || !payload || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw refuse('The cursor is not one this service issued, or it was altered');
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw refuse('The cursor is not one this service issued, or it was altered');
  }
  const head = z.looseObject({ m: z.string(), q: z.string() }).safeParse(decoded);
  if (!head.success || head.data.m !== model.name) throw refuse(`The cursor belongs to another model than ${model.name}`);
  if (head.data.q !== fingerprint) throw refuse('The cursor was issued for another request; send the same filters (and order_by or values) with it');
  return head.data;
}

const sealed = async (payload: object) => {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${await sign(text)}`;
};

export async function decodeCursor(cursor: string, model: Model, fingerprint: string, plan: AccessPlan): Promise<Position[]> {
  const parsed = payloadSchema.safeParse(await openCursor(cursor, model, fingerprint));
  if (
    !parsed.success ||
    parsed.data.p.length !== plan.shards.length ||
    !parsed.data.p.every((p, i) => p === null || fitsPlan(model, plan, plan.shards[i], p))
  ) {
    throw refuse('The cursor does not fit this query');
  }
  return parsed.data.p.map((p) => (p === null ? null : Object.keys(p).length === 0 ? undefined : p));
}

/**
 * Where a bulk update or delete that stopped short of its deadline goes on: after the record
 * `after` in id order ('' = from the first). Bound to the model and to the request's fingerprint.
 */
export const encodeResumeCursor = (model: Model, fingerprint: string, after: string): Promise<string> => sealed({ m: model.name, q: fingerprint, a: after });

export async function decodeResumeCursor(cursor: string, model: Model, fingerprint: string): Promise<string> {
  const parsed = z.strictObject({ m: z.string(), q: z.string(), a: z.string() }).safeParse(await openCursor(cursor, model, fingerprint));
  if (!parsed.success) throw refuse('The cursor does not fit this request');
  return parsed.data.a;
}

/**
 * Whether a position is one this query could have stopped at: the plan's key attributes and
 * nothing else, in the shard's own partition, the index key (if any) ending with the item's id.
 * DynamoDB answers a bare ValidationException for a start key outside the query.
 */
function fitsPlan(model: Model, plan: AccessPlan, shard: number, position: Record<string, string>): boolean {
  const names = Object.keys(position);
  if (names.length === 0) return true;
  if (names.length !== plan.keyAttributes.length || !plan.keyAttributes.every((a) => Object.hasOwn(position, a))) return false;
  const id = position[TABLE_KEY.sortKey];
  if (position[TABLE_KEY.partitionKey] !== partitionKey(model, shard) || id === '' || shardOf(model, id) !== shard) return false;
  if (!plan.indexName) return true;
  const [, , indexPk, indexSk] = plan.keyAttributes;
  return position[indexPk].startsWith(`${model.name}#`) && position[indexPk].endsWith(`#${shard}`) && position[indexSk].endsWith(`${VALUE_END}${id}`);
}
