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
  /** Fields to set; null removes an optional field. */
  values: Record<string, unknown>;
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

export type UpdateAnswer = BulkProgress & { updated: number };

export type DeleteAnswer = BulkProgress & { deleted: number };
