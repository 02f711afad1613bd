import {
  EmptyFilter,
  InvalidCursor,
  InvalidFilter,
  InvalidOrder,
  AggregateBuilding,
  IndexBuilding,
  InvalidRecord,
  InvalidValues,
  ItemTooLarge,
  LayoutMismatch,
  OutsideReach,
  MatchesAll,
  PartialWrite,
  PreconditionFailed,
  PreconditionNeedsId,
  RecordBusy,
  RecordExists,
  RecordNotFound,
  RepeatedIds,
  StoreError,
  TooManyMatches,
  TransactionRefused,
  UnknownField,
} from '../store/errors';
import { refusedForSize, type Misconfiguration } from '../store/sdk-errors';
import { whyUnavailable, type Unavailable } from '../store/unavailable';
import { settings } from '../config';
import { stringifyExactJson } from '../json/exact-json';
import { failure, success } from './envelope';
import { ApiError, type ErrorCode } from '../errors';
import { causeOf, log } from '../log';
import type { HttpResult, OperationResult } from '../contract';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A JSON answer whose text is already written (the OpenAPI document, built when bundling). */
export function jsonTextResult(statusCode: number, text: string, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: text };
}

export const jsonResult = (statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult =>
  jsonTextResult(statusCode, stringifyExactJson(body), headers);

export const successResult = (data: unknown, statusCode = 200, headers: Record<string, string> = {}): HttpResult =>
  jsonResult(statusCode, success(data), headers);

/** An operation's result as an answer. A copy: the outer middlewares change headers in place, and an operation may answer a shared constant. */
export const answerOf = (result: HttpResult | OperationResult): HttpResult =>
  'statusCode' in result ? { ...result, headers: { ...result.headers } } : successResult(result.data, result.status, result.headers);

/**
 * Every 503 says when to come back, and all say the same: one second. The SDK has already
 * retried with backoff (LIMITS.dynamoAttempts) before a 503 is answered, throttling and write
 * contention clear within about a second, and a caller told to wait longer would only wait
 * longer once they have. Health answered 5 s before; a monitor that probes again sooner costs
 * one point read, and learns a second sooner that the database is back.
 */
const RETRY_LATER = { 'retry-after': '1' };

const detailsAt = (path: string, message: string) => ({ details: [{ path, message }] });

type Answer = (error: unknown) => ApiError | undefined;
const on =
  <E>(type: abstract new (...args: never[]) => E, answer: (error: E) => ApiError): Answer =>
  (error) =>
    error instanceof type ? answer(error) : undefined;

/** Each store error and its answer: the one place that knows their status, code and envelope data. */
const STORE_ANSWERS: ReadonlyArray<Answer> = [
  on(InvalidRecord, (e) => new ApiError('validation_error', e.message, { details: e.details })),
  on(InvalidValues, (e) => new ApiError('invalid_request', e.message, { details: e.details })),
  on(
    InvalidFilter,
    (e) => new ApiError('invalid_filter', e.message, { path: e.path, ...detailsAt(e.path, e.problem), ...(e.operators ? { operators: e.operators } : {}) }),
  ),
  on(
    UnknownField,
    (e) =>
      new ApiError('unknown_field', e.message, {
        ...(e.path === undefined ? {} : { path: e.path }),
        field: e.field,
        model: e.model,
        ...(e.available ? { available: e.available } : {}),
        details: [e.detail],
      }),
  ),
  on(InvalidOrder, (e) => new ApiError('invalid_order_by', e.message, { sortable: e.sortable, ...detailsAt('order_by', e.message) })),
  on(InvalidCursor, (e) => new ApiError('invalid_cursor', e.message, detailsAt('cursor', e.problem))),
  on(EmptyFilter, (e) => new ApiError('empty_filter', e.message, detailsAt('filters', 'empty filter without allow_all'))),
  on(OutsideReach, (e) => new ApiError('forbidden', e.message, { path: e.path, ...detailsAt(e.path, e.problem) })),
  on(RecordNotFound, (e) => new ApiError('not_found', e.message, { model: e.model })),
  on(RecordExists, (e) => new ApiError('conflict', e.message, { ids: e.ids })),
  on(RepeatedIds, (e) => new ApiError('conflict', e.message, { ids: e.ids })),
  on(TransactionRefused, (e) => {
    const path = `operations.${e.index}`;
    const answer = { operation: e.index, reason: e.reason, model: e.model, id: e.id, ...detailsAt(path, e.message.slice(path.length + 2)) };
    return new ApiError(e.reason === 'too_large' ? 'payload_too_large' : 'conflict', e.message, answer);
  }),
  on(TooManyMatches, (e) => new ApiError('too_many_matches', e.message, { max_affected: e.maxAffected, matched_at_least: e.maxAffected + 1 })),
  on(
    MatchesAll,
    (e) =>
      new ApiError('matches_all', e.message, {
        model: e.model,
        matched: e.matched,
        ...detailsAt('filters', 'matches every record; allow_all: true is needed'),
      }),
  ),
  on(ItemTooLarge, (e) => new ApiError('payload_too_large', e.message, { id: e.id, item_bytes: e.bytes, max_item_bytes: e.maxBytes })),
  on(PreconditionFailed, (e) =>
    e.etag === undefined
      ? new ApiError('precondition_failed', e.message, { id: e.id, etag: null, ...detailsAt('headers.if-match', 'the record does not exist') })
      : new ApiError(
          'precondition_failed',
          e.message,
          { id: e.id, etag: e.etag, ...detailsAt('headers.if-match', `the record is now ${e.etag}`) },
          { etag: e.etag },
        ),
  ),
  on(PreconditionNeedsId, (e) => new ApiError('invalid_request', e.message, detailsAt('headers.if-match', 'needs filters that name one id'))),
  on(RecordBusy, (e) => new ApiError('record_busy', e.message, { id: e.id }, RETRY_LATER)),
  on(LayoutMismatch, (e) => new ApiError('model_layout_mismatch', e.message, { model: e.model, change: e.change, fix: e.fix })),
  on(
    IndexBuilding,
    (e) =>
      new ApiError(
        'index_building',
        e.message,
        { model: e.model, field: e.field, progress: { records_done: e.progress.done, shard: e.progress.shard, shards: e.shards } },
        RETRY_LATER,
      ),
  ),
  on(
    AggregateBuilding,
    (e) =>
      new ApiError(
        'aggregate_building',
        e.message,
        { model: e.model, aggregate: e.aggregate, progress: { records_done: e.progress.done, shard: e.progress.shard, shards: e.shards } },
        RETRY_LATER,
      ),
  ),
  on(PartialWrite, (e) => {
    const cause = classify(e.cause);
    return new ApiError(cause.code, cause.message, { ...cause.extra, ...e.counts }, cause.headers);
  }),
];

/** What an operator must fix, said without the SDK's text: no Retry-After, since waiting does not help. */
function misconfigured(problem: Misconfiguration): ApiError {
  const table = settings().TABLE_NAME;
  const what = {
    table_missing: `the table ${table} does not exist (or is not active yet)`,
    access_denied: `the function's role may not ${problem.kind === 'access_denied' && problem.action ? problem.action : `use the table ${table}`}`,
    bad_credentials: "the function's AWS credentials are not accepted",
  }[problem.kind];
  return new ApiError('misconfigured', `The service is misconfigured: ${what}; the cause is in this function's log`, { problem: problem.kind });
}

/**
 * What a thrown error means to the caller: an ApiError as it is, a store error by the registry,
 * anything else by what the SDK or the socket says. Nothing of an SDK message or stack reaches the body.
 */
export function classify(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  for (const answer of STORE_ANSWERS) {
    const apiError = answer(error);
    if (apiError) return apiError;
  }
  if (refusedForSize(error)) return new ApiError('payload_too_large', "A record would exceed DynamoDB's 400 KB item size");
  const unavailable = whyUnavailable(error);
  return unavailable ? unavailableAnswer(unavailable) : new ApiError('internal', 'Internal error; it has been logged');
}

/** The answer while the database is unavailable (shared/store/unavailable.ts decides when): 503 to wait out, 500 for what an operator must fix. */
function unavailableAnswer(unavailable: Unavailable): ApiError {
  switch (unavailable.kind) {
    case 'outcome_unknown':
      return new ApiError('outcome_unknown', unavailable.error.message, { id: unavailable.error.id }, RETRY_LATER);
    case 'out_of_time':
      return new ApiError('database_unavailable', unavailable.error.message, {}, RETRY_LATER);
    case 'unreachable':
      return new ApiError('database_unavailable', unavailable.error.message, { database: 'unavailable' }, RETRY_LATER);
    case 'misconfigured':
      return misconfigured(unavailable.problem);
    case 'timeout':
      return new ApiError('database_unavailable', 'The database did not answer in time; retry later', {}, RETRY_LATER);
    case 'overloaded':
      return new ApiError('database_unavailable', 'The database is unavailable or overloaded; retry later', {}, RETRY_LATER);
  }
}

/** The error envelope of a classified error, not logged. */
export const errorAnswer = (apiError: ApiError): HttpResult =>
  jsonResult(apiError.status, failure(apiError.code, apiError.message, apiError.extra), apiError.headers);

/**
 * 5xx answers that are the service working as designed, not a fault to look into: an order by an
 * index still building is answered 503 until its build is done. Like every 4xx, the request's
 * own log line (its status and code, at info) records them.
 */
const EXPECTED_5XX: ReadonlySet<ErrorCode> = new Set(['index_building', 'aggregate_building']);

/**
 * What the caller of errorResult wants to hear of besides the answer: a misconfiguration is
 * counted for its alarm by the chain that serves the request (shared/http/middleware.ts), so
 * that answering does not reach up into the health metrics.
 */
export interface ErrorHooks {
  onMisconfigured?: () => void;
}

export function errorResult(thrown: unknown, { onMisconfigured }: ErrorHooks = {}): HttpResult {
  const apiError = classify(thrown);
  // A store error that wraps another logs that one: the SDK's name and stack are what a person needs.
  const error = thrown instanceof StoreError && thrown.cause !== undefined ? thrown.cause : thrown;
  if (apiError.status >= 500 && !EXPECTED_5XX.has(apiError.code)) log.error(apiError.code, causeOf(error, { stack: true }));
  if (apiError.code === 'misconfigured') onMisconfigured?.();
  return errorAnswer(apiError);
}
