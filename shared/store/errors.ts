import type { ErrorDetail } from '../models/details';

/**
 * What the store refuses or cannot do, in its own words: each class carries the facts of its
 * case as typed fields and no HTTP status or code. One registry (shared/answer/respond.ts) turns
 * them into the answers callers see. This module imports nothing that runs, so every function
 * can map these errors without loading the store.
 */
export abstract class StoreError extends Error {}

/** Record data (or an update's result) that its model refuses: every problem, with its path. */
export class InvalidRecord extends StoreError {
  constructor(readonly details: ErrorDetail[]) {
    super(`The record is invalid: ${details[0]?.path || 'record'}: ${details[0]?.message}`);
  }
}

/** An update's `values` that no record could take, whatever it holds. */
export class InvalidValues extends StoreError {
  constructor(
    message: string,
    readonly details: ErrorDetail[],
  ) {
    super(message);
  }
}

/**
 * A write that would put a record outside its writer's reach (shared/store/write/row-fields.ts):
 * another owner's or tenant's record made, or a record's owner or tenant changed. `path` is the
 * field in the request.
 */
export class OutsideReach extends StoreError {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}; nothing was written`);
  }
}

/** A filter the store cannot read; `path` is where in the request, `operators` the ones it knows when an unknown one was sent. */
export class InvalidFilter extends StoreError {
  constructor(
    readonly path: string,
    readonly problem: string,
    readonly operators?: ReadonlyArray<string>,
  ) {
    super(`Invalid filter at ${path}: ${problem}`);
  }
}

/**
 * A field the model does not have, named in a filter (`path` is where) or in `fields`.
 * `available` lists the model's fields where the caller could have meant one of them.
 */
export class UnknownField extends StoreError {
  constructor(
    readonly model: string,
    readonly field: string,
    readonly detail: ErrorDetail,
    readonly available?: ReadonlyArray<string>,
    readonly path?: string,
  ) {
    super(`Model ${model} has no field ${field}`);
  }
}

/** An order_by the model cannot be read in; `sortable` lists the ones it can. */
export class InvalidOrder extends StoreError {
  constructor(
    readonly sortable: ReadonlyArray<string>,
    problem: string,
  ) {
    super(problem);
  }
}

/** A cursor that is not this service's, or not of this request. */
export class InvalidCursor extends StoreError {
  constructor(
    message: string,
    readonly problem = message,
  ) {
    super(message);
  }
}

/** A bulk write with an empty filter and no `allow_all`. */
export class EmptyFilter extends StoreError {
  constructor() {
    super('An empty filter would change every record; send "allow_all": true if that is meant');
  }
}

/** get_one found nothing. */
export class RecordNotFound extends StoreError {
  constructor(readonly model: string) {
    super(`No ${model} record matches the filters`);
  }
}

/** Records that already exist: the create changed nothing. */
export class RecordExists extends StoreError {
  constructor(
    readonly model: string,
    readonly ids: ReadonlyArray<string>,
  ) {
    super(`A record with id ${ids[0]} already exists in ${model}`);
  }
}

/** A create that names one id twice. */
export class RepeatedIds extends StoreError {
  constructor(readonly ids: ReadonlyArray<string>) {
    super(`The request repeats id ${ids[0]}`);
  }
}

/** More records match a bulk write than it may change; nothing was changed. */
export class TooManyMatches extends StoreError {
  constructor(readonly maxAffected: number) {
    super(`More than ${maxAffected} records match; nothing was changed`);
  }
}

/**
 * A bulk write without allow_all whose filter matches every record of its model (2 or more,
 * counted right after the matches were read); nothing was changed.
 */
export class MatchesAll extends StoreError {
  constructor(
    readonly model: string,
    readonly matched: number,
  ) {
    super(`the filter matches every record of ${model} (${matched}); send allow_all: true (needs the admin scope) if you mean it`);
  }
}

/** A record over DynamoDB's item size, refused before it was written. */
export class ItemTooLarge extends StoreError {
  constructor(
    readonly id: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`Record ${id} would be ${bytes} bytes, over DynamoDB's 400 KB item size`);
  }
}

/**
 * A write by id whose If-Match the record does not meet: it changed since the entity tag was
 * read, or it is not there (`etag` absent). Nothing was written.
 */
export class PreconditionFailed extends StoreError {
  constructor(
    readonly id: string,
    readonly etag?: string,
  ) {
    super(
      etag === undefined
        ? `Record ${id} does not exist (or no longer matches the filters), so If-Match fails; nothing was written`
        : `Record ${id} is now ${etag}, which If-Match does not name; nothing was written`,
    );
  }
}

/** If-Match on an update or delete whose filters do not name one record by id: an entity tag belongs to one record. */
export class PreconditionNeedsId extends StoreError {
  constructor() {
    super('If-Match applies to one record: the filters must name its id by equality, as {"id": "..."}');
  }
}

/** A record other writers kept changing through every attempt of an update: retry later. */
export class RecordBusy extends StoreError {
  constructor(readonly id: string) {
    super(`Record ${id} kept changing under this update; retry later`);
  }
}

/**
 * A write whose call failed after it may have reached DynamoDB, and whose item could not be
 * read back to tell: it may have been applied. `cause` is the write's own failure.
 */
export class OutcomeUnknown extends StoreError {
  constructor(
    readonly id: string,
    cause: unknown,
  ) {
    super(`The database stopped answering after the write of ${id} was sent; it may have been applied`, { cause });
  }
}

/** A create that came too close to the function's deadline to start its write; nothing was stored. */
export class BatchOutOfTime extends StoreError {
  constructor() {
    super("The records could not be written before the function's deadline; nothing was stored. Retry");
  }
}

/** The table did not answer a probe (health); `cause` is what the SDK threw. */
export class TableUnreachable extends StoreError {
  constructor(cause: unknown) {
    super('The database cannot be reached', { cause });
  }
}

/**
 * What a bulk update or delete did before a write failed for good: `failed` records were not
 * written, `unknown` ones may have been (their answers were lost).
 */
export type BulkCounts = { matched: number; failed: number; unknown?: number } & ({ updated: number } | { deleted: number });

/**
 * A bulk write stopped by `cause` (a store error or the SDK's): the answer is the cause's, with
 * the counts of what was changed before it, so a caller knows exactly where things stand.
 */
export class PartialWrite extends StoreError {
  constructor(
    override readonly cause: unknown,
    readonly counts: BulkCounts,
  ) {
    super(`A bulk write failed after ${'updated' in counts ? counts.updated : counts.deleted} of ${counts.matched} records`, { cause });
  }
}

/**
 * A model whose definition changed in a way its stored records cannot follow (shards, or an
 * index slot dropped or reordered): served, it would answer wrongly, so it is not served at all.
 */
export class LayoutMismatch extends StoreError {
  constructor(
    readonly model: string,
    readonly change: string,
    readonly fix: string,
  ) {
    super(`Model ${model} cannot be served: ${change}. To fix: ${fix}`);
  }
}

/** An order only an index still being built could give (shared/store/layout/index-build.ts). */
export class IndexBuilding extends StoreError {
  constructor(
    readonly model: string,
    readonly field: string,
    readonly progress: { shard: number; done: number },
    readonly shards: number,
  ) {
    super(
      `The index on ${model}.${field} is still being built (${progress.done} records done, shard ${progress.shard + 1} of ${shards}); ordering by it is possible once it is ready. Filters on it work meanwhile`,
    );
  }
}

/** An aggregate still backfilling the records stored before it was declared (shared/aggregates/backfill.ts). */
export class AggregateBuilding extends StoreError {
  constructor(
    readonly model: string,
    readonly aggregate: string,
    readonly progress: { shard: number; done: number },
    readonly shards: number,
  ) {
    super(
      `The aggregate ${aggregate} of ${model} is still counting the records stored before it was declared (${progress.done} records done, shard ${progress.shard + 1} of ${shards}); count reads the records meanwhile`,
    );
  }
}

/** Why DynamoDB cancelled a transaction for one of its operations. */
export type RefusalReason = 'exists' | 'missing' | 'condition_failed' | 'too_large';

/**
 * A transaction cancelled for the sake of its `index`-th operation (in the request's order):
 * nothing of it was written, on any model.
 */
export class TransactionRefused extends StoreError {
  constructor(
    readonly index: number,
    readonly reason: RefusalReason,
    readonly model: string,
    readonly id: string,
  ) {
    const why = {
      exists: `a ${model} record with id ${id} already exists`,
      missing: `there is no ${model} record with id ${id}`,
      condition_failed: `the ${model} record ${id} does not match its filters`,
      too_large: `the ${model} record ${id} would exceed DynamoDB's 400 KB item size`,
    }[reason];
    super(`operations.${index}: ${why}; nothing was written`);
  }
}
