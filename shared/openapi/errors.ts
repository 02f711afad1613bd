import { ERROR_STATUS, type ErrorCode } from '../errors';

/** What each error code means to a caller; typed by ERROR_STATUS, so a new code must be explained here. */
export const ERROR_MEANING: Record<ErrorCode, string> = {
  malformed_json: 'The body is not JSON, or its bytes are not UTF-8',
  invalid_request:
    'The body has the wrong shape: a missing or unknown property, values naming a system field, a __proto__, constructor or prototype key (data.details gives its path), ...',
  invalid_filter: 'An unknown operator, a value of the wrong type, a bad $between, or a filter too deep or too large',
  unknown_field: 'A filter or fields names a field the model does not have (data.available lists them)',
  invalid_order_by: 'order_by names a field that is neither id nor indexed',
  invalid_cursor:
    'The cursor was altered, belongs to another query or request, is empty, was issued with allow_all and sent without it, or comes from a listing before cursors held one position (list again without it)',
  empty_filter: 'update or delete with {} filters and no allow_all',
  unauthorized: 'No valid bearer token (WWW-Authenticate says why)',
  forbidden: 'The token lacks the scope the request needs (data.required_scope), or the model is read-only',
  unknown_model: 'No such model (data.available lists them)',
  not_found: 'get_one matched nothing',
  route_not_found: 'No such route',
  method_not_allowed: 'The path exists with another method (Allow header)',
  conflict: 'create of an id that exists; nothing is written',
  too_many_matches: 'More records match than max_affected; nothing changes',
  record_busy: 'Other writers kept changing the record (data.id) until this request ran out of time; this request wrote nothing, retry after Retry-After',
  idempotency_in_flight: 'A request with the same Idempotency-Key is still running; nothing was done, retry after Retry-After',
  idempotency_answer_not_kept: "The Idempotency-Key's first request finished (data.first_status) but its answer was too large to keep; nothing was done again",
  idempotency_key_reused: 'The Idempotency-Key was used for a different request (route, model or body); nothing was done',
  matches_all:
    'The filter of an update or delete matches every record of the model (2 or more): send allow_all: true, which takes the admin scope; nothing changes',
  precondition_failed:
    'If-Match names no entity tag the record has now (it changed, or it is gone: data.etag and the ETag header give its current tag, null when there is none), or create with If-None-Match: * of an id that exists (data.ids); nothing was written',
  payload_too_large: "The body is over the size limit, or a record is over DynamoDB's 400 KB",
  validation_error: 'Record data breaks the model schema; data.details lists each {path, message}',
  internal: 'A bug; it is logged, and the answer carries no stack trace',
  secret_unavailable:
    "A secret the function needs (tokens, cursor key, OneBot secret) cannot be read: a missing grant or a deleted secret; the cause is in the function's log",
  misconfigured:
    "The table does not exist, the function's role lacks a grant, or its AWS credentials are not accepted (data.problem: table_missing, access_denied, bad_credentials); an operator must fix it, retrying does not help; the cause is in the function's log",
  database_unavailable: 'DynamoDB throttled, unreachable or not answering in time after retries; nothing was written; retry after the Retry-After header',
  outcome_unknown:
    'DynamoDB stopped answering after a write was sent and the record (data.id) could not be read back: the write may have been applied. Read the record, or retry with the same Idempotency-Key',
  model_layout_mismatch:
    "The model's definition changed in a way its stored records cannot follow (shards, or an index slot dropped or reordered): data.change says how, data.fix what to do; nothing is read or written until it is fixed",
  aggregate_building:
    'The aggregate was declared on a model holding records, which are still being counted into it (data.progress); count reads the records meanwhile, retry after Retry-After',
  index_building:
    'order_by names a field whose index is still being built for the records stored before it was indexed (data.progress); filters on the field work meanwhile, retry the order later',
};

/** The codes among `codes` grouped by their HTTP status, in status order. */
export function byStatus(codes: ReadonlyArray<ErrorCode>): Array<[number, ErrorCode[]]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) groups.set(ERROR_STATUS[code], [...(groups.get(ERROR_STATUS[code]) ?? []), code]);
  return [...groups.entries()].sort(([a], [b]) => a - b);
}
