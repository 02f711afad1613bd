import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as zm from '../../zod';
import { stringifyExactJson } from '../../json/exact-json';
import type { Model } from '../../models/model';
import type { AccessPlan } from '../read/plan';
import type { Reach } from '../types';
import { InvalidCursor } from '../errors';
import { canonicalFilter, sortedKeys } from '../filter/canonical';
import { idOfIndexSortKey, VALUE_END } from '../keys';
import type { CursorKey } from './key';

/**
 * Cursors are `<payload>.<hmac>` in base64url. The HMAC makes a hand-edited cursor an InvalidCursor;
 * the payload binds the cursor to its model and to a hash of the filter and order, and holds
 * one position for all shards: the sort key the page ended at, under the plan's sort attribute.
 * Every shard resumes after it (AccessPlan.startKey), so the cursor names no partition.
 */
const payloadSchema = zm.strictObject({
  m: zm.string(),
  q: zm.string(),
  k: zm.record(zm.string(), zm.string()),
});

/**
 * Without a key a service-wide one anyone could derive (the table name's) would let them sign
 * any position. Deployed stacks set CURSOR_SECRET and npm start keeps a random one per data
 * directory (scripts/local/cursor-key.ts); any other caller signs with a key of this process only.
 */
const processKey = randomBytes(32).toString('base64url');

const sign = async (key: CursorKey, payload: string) =>
  createHmac('sha256', (await key()) || processKey)
    .update(payload)
    .digest('base64url');

/**
 * What a cursor is bound to: the request's filter by its meaning (canonicalFilter: key order and
 * `{"$eq": v}` for `v` do not matter), the rest of the request (order_by, or an update's values,
 * whose key order does not matter either) and the reach of the caller of a model with row rules
 * (shared/store/reach.ts), so that another caller's cursor is refused as an altered one is. A
 * filter already in that form, on a model without rules, hashes as it did before 2026-11-27, so
 * the cursors issued for it then still resume.
 */
export function queryFingerprint(filters: unknown, orderBy: unknown, reach?: Reach): string {
  const request = { filters: canonicalFilter(filters ?? {}), orderBy: sortedKeys(orderBy ?? null) };
  return createHash('sha256')
    .update(stringifyExactJson(reach ? { ...request, reach: sortedKeys(reach) } : request))
    .digest('base64url')
    .slice(0, 22);
}

export const encodeCursor = (key: CursorKey, model: Model, fingerprint: string, plan: AccessPlan, after: string): Promise<string> =>
  sealed(key, { m: model.name, q: fingerprint, k: { [plan.sortAttribute]: after } });

const refuse = (message: string) => new InvalidCursor(message);

/** The payload of a cursor this service signed for this model and query, or InvalidCursor. */
async function openCursor(key: CursorKey, cursor: string, model: Model, fingerprint: string): Promise<Record<string, unknown>> {
  if (cursor === '') throw refuse('The cursor is empty; leave cursor out to start from the beginning');
  const [payload, mac, ...rest] = cursor.split('.');
  const expected = Buffer.from(await sign(key, payload ?? ''));
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
  const head = zm.looseObject({ m: zm.string(), q: zm.string() }).safeParse(decoded);
  if (!head.success || head.data.m !== model.name) throw refuse(`The cursor belongs to another model than ${model.name}`);
  if (head.data.q !== fingerprint) {
    throw refuse(
      'The cursor was issued for another request or another caller; send the same filters (in any key order) and order_by or values with it. A cursor issued before 2026-11-27 for a request with keys out of alphabetical order or a {"$eq": ...} cannot resume: start again without it',
    );
  }
  return head.data;
}

const sealed = async (key: CursorKey, payload: object) => {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${await sign(key, text)}`;
};

export async function decodeCursor(key: CursorKey, cursor: string, model: Model, fingerprint: string, plan: AccessPlan): Promise<string> {
  const payload = await openCursor(key, cursor, model, fingerprint);
  // Cursors made before 2026-11-24 held a position per shard, which loses records created
  // between pages; none of them can be turned into a safe common position (docs/record-api.md).
  if (Object.hasOwn(payload, 'p')) throw refuse('The cursor was issued by an earlier version of the service and cannot resume; list again without a cursor');
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success || !fitsPlan(plan, parsed.data.k)) throw refuse('The cursor does not fit this query');
  return parsed.data.k[plan.sortAttribute];
}

/** Where a bulk write goes on: after the record `after` in id order ('' = from the first), as part of the bulk operation `operation`. */
export interface Resume {
  after: string;
  /** Absent in cursors issued before operations were named: such a call begins an operation of its own. */
  operation?: string;
  /** Issued to a request with allow_all: it goes on only with allow_all again (which takes admin). */
  wide?: boolean;
  /**
   * Records after `after` that this operation already wrote and counted (a call that stopped at
   * a failure, with writes past it in flight): the call that resumes leaves them out, so that
   * every record is counted once over the calls (shared/store/bulk/settle.ts).
   */
  written?: string[];
}

/**
 * Where a bulk update or delete that stopped short of its deadline goes on, bound to the model
 * and to the request's fingerprint. It names the operation the first call began, so that the
 * same cursor sent twice recognises the records that operation already wrote.
 */
export const encodeResumeCursor = (key: CursorKey, model: Model, fingerprint: string, { after, operation, wide, written = [] }: Resume): Promise<string> =>
  sealed(key, { m: model.name, q: fingerprint, a: after, o: operation, ...(wide ? { w: true } : {}), ...(written.length > 0 ? { d: written } : {}) });

export async function decodeResumeCursor(key: CursorKey, cursor: string, model: Model, fingerprint: string): Promise<Resume> {
  const parsed = zm
    .strictObject({
      m: zm.string(),
      q: zm.string(),
      a: zm.string(),
      o: zm.optional(zm.string()),
      w: zm.optional(zm.literal(true)),
      d: zm.optional(zm.array(zm.string())),
    })
    .safeParse(await openCursor(key, cursor, model, fingerprint));
  if (!parsed.success) throw refuse('The cursor does not fit this request');
  const { a: after, o: operation, w: wide, d: written } = parsed.data;
  return { after, operation, ...(wide ? { wide } : {}), ...(written ? { written } : {}) };
}

/**
 * Whether a position is one this query could have stopped at: a sort key under the plan's own
 * sort attribute and nothing else, within the plan's key space; on an index, an encoded value
 * and the id after it. DynamoDB answers a bare ValidationException for a start key outside the
 * query's key range (shared/store/actions/list/list.ts).
 */
function fitsPlan(plan: AccessPlan, position: Record<string, string>): boolean {
  const names = Object.keys(position);
  if (names.length !== 1 || names[0] !== plan.sortAttribute) return false;
  const key = position[names[0]];
  if (!key.startsWith(plan.space) || key.length === plan.space.length) return false;
  if (!plan.indexName) return true;
  return key.indexOf(VALUE_END, plan.space.length) > plan.space.length && idOfIndexSortKey(key, plan.space) !== '';
}
