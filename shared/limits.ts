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
  /** Entries of `details` in one error answer; `details_total` gives the full count beyond it. */
  maxErrorDetails: 100,
} as const;

/** The OneBot receiver's limits; the README's OneBot section documents each. */
export const ONEBOT_LIMITS = {
  /**
   * Nesting of arrays and objects in an event, the event itself counting as 1. DynamoDB stores
   * 32 levels, the event sits in the record's `d`, and 31 was a 500 from DynamoDB Local.
   */
  maxEventDepth: 30,
  /** Characters of a rule's pattern (any match kind). */
  maxPatternLength: 500,
  /** Characters of a regex rule's pattern. */
  maxRegexLength: 200,
  /** Characters of the message text a regex rule is tested against (the start of the text). */
  regexInputChars: 1000,
  /** Characters of a string reply, segments in an array reply. */
  maxReplyLength: 4500,
  maxReplySegments: 50,
  /** Enabled rules considered per event (one page of the rule list). */
  maxRules: 1000,
  /** Bots listed in the health answer. */
  maxBotsInHealth: 100,
  /** A heartbeat is overdue after this many of its intervals without one. */
  overdueIntervals: 3,
} as const;
