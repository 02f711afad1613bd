/**
 * Every limit the API enforces, declared once: the handlers, the local server, the OpenAPI
 * document and the README table read these. Each breach answers a clear error and stores nothing.
 */
export const LIMITS = {
  /** Request body bytes (API Gateway allows 10 MB, Lambda 6 MB; records are at most 400 KB). */
  maxBodyBytes: 1_048_576,
  /** Nesting of arrays and objects in a body (DynamoDB stores documents up to 32 levels deep). */
  maxJsonDepth: 64,
  /** Records in one create request. */
  maxCreateBatch: 100,
  /** Default and largest `limit` of one list page. */
  defaultPageSize: 100,
  maxPageSize: 1000,
  /** Nesting depth of $and/$or/$not in a filter. */
  maxFilterDepth: 6,
  /** Field conditions in one filter. */
  maxFilterConditions: 64,
  /** Values in one $in/$nin list (DynamoDB's IN takes 100 operands). */
  maxInValues: 100,
  /** Characters of one string operand in a filter. */
  maxFilterStringLength: 1024,
  /** Items DynamoDB may evaluate for one list page or count before the answer stops early with a cursor. */
  maxScannedPerRequest: 20_000,
  /** Records one update or delete may change: `max_affected` defaults to this and cannot exceed it. */
  maxAffected: 10_000,
  /** Conditional writes in flight at once during bulk update/delete/create. */
  writeConcurrency: 16,
  /** Characters of a record id. */
  maxIdLength: 200,
} as const;
