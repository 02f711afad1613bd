import type { Model } from '../models/model';

/**
 * The store's requests and answers, its own. The API's zod schemas (shared/api/requests/,
 * responses.ts) describe the same shapes to callers, and each operation (shared/api/<op>.ts)
 * hands a checked body to the store and types its answer by the schema, so a drift on either
 * side is a type error there. `filters` is any value: the store parses filters itself
 * (shared/store/filter/parse.ts), and the service's own callers build them in code.
 */

/** Where a record is read: strongly consistent reads cost twice, and only the base table has them. */
interface Read {
  fields?: ReadonlyArray<string>;
  consistent?: boolean;
}

export interface GetOneRequest extends Read {
  filters: unknown;
}

export interface ListRequest extends Read {
  filters?: unknown;
  /** `field` or `-field`, alone or as the one item of an array. */
  order_by?: string | ReadonlyArray<string>;
  limit?: number;
  cursor?: string;
}

export interface CountRequest {
  filters?: unknown;
  consistent?: boolean;
}

/** What every bulk update or delete must say (shared/store/bulk/match.ts checks it). */
export interface BulkGuard {
  filters: unknown;
  allow_all?: boolean;
  max_affected?: number;
  cursor?: string;
}

export interface UpdateRequest extends BulkGuard {
  /** Update operators ($set, $inc, ...: shared/store/operators/), or fields to set whole; null removes an optional field. */
  values: Record<string, unknown>;
  /** Create the record when the filters, which name its id, match none. */
  upsert?: boolean;
}

/** Records to make, each with its id (the caller's, or one it made with shared/store/keys.ts newId or runId). */
export interface CreateRequest {
  records: ReadonlyArray<{ id: string; data: unknown }>;
}

/** Some fields of one record, by id: the service's own write (OneBot), never the API's. */
export interface UpdateByIdRequest {
  id: string;
  /** Values of plain fields of the model: none indexed, and a model whose fields are valid one by one. */
  values: Record<string, unknown>;
  /** The whole record to create when there is none yet. */
  orCreate?: Record<string, unknown>;
}

/** A record as the API shows it: id, the model's fields, then the system fields. */
export type ApiRecord = Record<string, unknown> & { id: string };

/** Items are ApiRecords: a record's type is per model, and the store serves any model. */
export interface ListAnswer {
  items: ApiRecord[];
  next_cursor: string | null;
  scanned: number;
}

export interface CountAnswer {
  count: number;
  scanned: number;
}

type BulkProgress = {
  matched: number;
  skipped: number;
  /** Records whose write may or may not have landed (its answer was lost); absent when none. */
  unknown?: number;
  complete: boolean;
  next_cursor: string | null;
};

/** `upserted` only for an upsert: true when it created the record. */
export type UpdateAnswer = BulkProgress & { updated: number; upserted?: boolean };

export type DeleteAnswer = BulkProgress & { deleted: number };

/** What a write of some fields by id did; 'missing' only without `orCreate`. */
export type UpdateByIdAnswer = 'updated' | 'created' | 'missing';

/**
 * What every run of one key shares, so that a run after one whose outcome is unknown recognises
 * that run's writes: the operation's token (its writes' tokens start with it), the time of the
 * first run (the time part of the ids it made), and the records a bulk update or delete set out
 * to change, kept before its first write (`plan`), so that a retry finishes that work and counts
 * what the first run did, even records it deleted.
 */
export interface KeyRun {
  operation: string;
  since: number;
  plan?: ReadonlyArray<string>;
  /** Keeps the ids a bulk write is about to change with the key (a no-op for a plan too large to keep). */
  keepPlan?: (ids: ReadonlyArray<string>) => Promise<void>;
}

/**
 * The records of a model an API caller reaches under the model's row rules (shared/access/rules.ts).
 * An action given none reaches every record: the service's own writers and a model without rules.
 */
export interface Reach {
  /** The tenant every key of the action lies within (shared/store/keys.ts): other tenants' records are not in its keys at all. */
  tenant?: string;
  /** Only records whose owner field holds this subject; undefined crosses owners (admin). */
  owner?: string;
  /** The subject a create stores in the owner field, when its data names none. */
  creator?: string;
}

/** How an action runs, as its caller says; each action reads only what concerns it. */
export interface ActionOptions {
  /** What the caller may reach; undefined for the service itself. */
  reach?: Reach;
  /**
   * The Idempotency-Key's run this call is (shared/idempotency/keys.ts): its operation, so that
   * a retry recognises what an earlier run wrote, and its first time, so that a bulk write acts
   * only on records that existed then.
   */
  keyRun?: KeyRun;
}

/** If-Match as the store takes it: `*`, or the entity tags (shared/store/write/entity-tag.ts) any one of which the record must have. */
export type IfMatch = '*' | ReadonlyArray<string>;

/** How an update or delete of one record by id runs under HTTP preconditions. */
export interface WriteOptions extends ActionOptions {
  /** The record must have one of these entity tags when it is written (one write by id only). */
  ifMatch?: IfMatch;
  /**
   * An upsert's update after its create lost to another writer's: the record its id names is
   * the run's to update, though it was made after the run began and no run of the key planned it.
   */
  createLost?: boolean;
}

/** Every action's one shape: the model, what to do (the request), how to run (the options). */
export type Action<Request, Answer, Options extends ActionOptions = ActionOptions> = (model: Model, request: Request, options?: Options) => Promise<Answer>;

/** One operation of a transaction, its model found and its id settled (a create's made when not sent). */
export type TransactOperation = (
  | { op: 'create'; model: Model; id: string; data: unknown }
  | { op: 'update'; model: Model; id: string; values: Record<string, unknown>; filters?: unknown }
  | { op: 'delete' | 'check'; model: Model; id: string; filters?: unknown }
) & { reach?: Reach };

export interface TransactRequest {
  operations: ReadonlyArray<TransactOperation>;
}

/** What each operation of a transaction did, in the request's order. */
export type TransactResult =
  | { op: 'create' | 'update'; record: ApiRecord }
  | { op: 'delete'; id: string; deleted: true }
  | { op: 'check'; id: string; check: true };

export interface TransactAnswer {
  results: TransactResult[];
}
