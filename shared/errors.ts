/**
 * Every error the API answers, with its HTTP status. Operations throw ApiError, the store its
 * own errors (shared/store/errors.ts); one registry (shared/answer/respond.ts) turns either into
 * the error envelope. The OpenAPI document reads this table.
 */
export const ERROR_STATUS = {
  malformed_json: 400,
  invalid_request: 400,
  invalid_filter: 400,
  unknown_field: 400,
  invalid_order_by: 400,
  invalid_cursor: 400,
  empty_filter: 400,
  unauthorized: 401,
  forbidden: 403,
  unknown_model: 404,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_many_matches: 409,
  record_busy: 409,
  idempotency_in_flight: 409,
  idempotency_answer_not_kept: 409,
  matches_all: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  validation_error: 422,
  idempotency_key_reused: 422,
  internal: 500,
  secret_unavailable: 500,
  misconfigured: 500,
  model_layout_mismatch: 500,
  database_unavailable: 503,
  outcome_unknown: 503,
  index_building: 503,
  aggregate_building: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}
