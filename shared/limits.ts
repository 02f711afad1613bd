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
  /**
   * Characters of a filter compiled to a DynamoDB condition (placeholders for every name and
   * value): DynamoDB refuses expressions over 4 KB, and a delete's condition adds ~30 to it.
   */
  maxFilterExpressionLength: 4000,
  /** Values in one $in/$nin list (DynamoDB's IN takes 100 operands). */
  maxInValues: 100,
  /** Characters of one string operand in a filter. */
  maxFilterStringLength: 1024,
  /** Items DynamoDB may evaluate for one list page or count before the answer stops early with a cursor. */
  maxScannedPerRequest: 20_000,
  /** Records one update or delete may change: `max_affected` defaults to this and cannot exceed it. */
  maxAffected: 10_000,
  /**
   * Bulk update and delete start no new write this close to the function's deadline: the writes
   * in flight finish, and the answer says how far it got and how to go on (README).
   */
  bulkStopBeforeDeadlineMs: 2_000,
  /** Conditional writes in flight at once during bulk update/delete/create. */
  writeConcurrency: 16,
  /** Characters of a record id. */
  maxIdLength: 200,
  /**
   * UTF-8 bytes of a tenant claim: the tenant starts every sort key of its records and their index
   * entries (shared/store/keys.ts), and DynamoDB takes a sort key of at most 1,024 bytes.
   */
  maxTenantBytes: 64,
  /** Entries of `details` in one error answer; `details_total` gives the full count beyond it. */
  maxErrorDetails: 100,
  /** Names in one `fields` list of get_one or list. */
  maxFields: 100,
  /** Characters of a `cursor` sent back (the ones the service issues stay far below it). */
  maxCursorLength: 8192,
  /** Characters of an Idempotency-Key header (the IETF draft leaves it to the server; Stripe takes 255). */
  maxIdempotencyKeyLength: 255,
  /** How long a finished request's answer is replayed for its Idempotency-Key (the draft and Stripe: at least 24 h). */
  idempotencyKeepSeconds: 24 * 60 * 60,
  /**
   * Milliseconds a request goes on trying to keep its answer under its Idempotency-Key, or to
   * give the key back, when the database fails that write: a short outage then leaves no key
   * held until the request's deadline.
   */
  idempotencySettleMs: 3_000,
  /**
   * Bytes of record ids a keyed bulk write keeps with its key before writing (about 1,700 ULIDs
   * as stored); the answer kept afterwards replaces them, so the two never share the 400 KB item.
   */
  maxKeptPlanBytes: 48 * 1024,
  /**
   * Bytes of an answer kept for replay: the key's item must stay within DynamoDB's 400 KB with
   * its other attributes. A larger answer is not kept; its key still stops a second write.
   */
  maxReplayedAnswerBytes: 350 * 1024,
  /** Partition keys one model may spread over (`shards` in its definition). */
  maxShards: 64,
  /** Fields a model may index: the table's index slots (shared/store/table.ts). */
  maxIndexedFields: 3,
  /** Aggregates a model declares, and fields one groups by: each change of a record writes one counter per aggregate it moves between groups. */
  maxAggregates: 5,
  maxGroupFields: 4,
  /** Nesting of record data: DynamoDB stores documents 32 levels deep, and the data sits one level down in the item. */
  maxStoredDepth: 31,
  /**
   * Bytes of an indexed string kept in its index key: DynamoDB caps a GSI sort key at 1024 bytes
   * and the id may take 800 (200 characters). Longer values still match exactly (the filter
   * re-checks them); only their order among values sharing that prefix is by id.
   */
  maxIndexedStringBytes: 200,
  /**
   * Attempts of each DynamoDB request (the SDK's standard retry mode: jittered exponential
   * backoff, 1 s base for throttling). Four sleep at most 1 + 2 + 4 = 7 s, inside the 10 s
   * function timeout; a fifth could sleep 8 s more, and the answer would then be the timeout's
   * instead of a clean 503.
   */
  dynamoAttempts: 4,
  /**
   * Writes of one record in one update when other writers keep changing it: a failed
   * conditional write means another writer's landed, so N writers racing on one record all
   * land within N attempts. Past this many the record is too busy to answer now (503).
   */
  maxContentionAttempts: 50,
  /**
   * Milliseconds a write whose answer was lost is settled for (shared/store/write/late-write.ts) when
   * no invocation's cutoff bounds it (the store's own callers: seeding, the index build): two
   * answer timeouts, time for a copy to be sent and seen.
   */
  settleWithoutCutoffMs: 6_000,
  /**
   * Idempotency-Key runs a record remembers having written it (the newest ones): a keyed retry
   * recognises its run's write after other writers changed the record, as long as fewer than
   * this many other keyed runs wrote it since.
   */
  rememberedKeyRuns: 8,
} as const;

/**
 * How long any call to another service may take (shared/invocation.ts applies them): DynamoDB,
 * SQS and S3 through the SDK's own HTTP handler, the secrets extension over node:http. On top
 * of these, every call of an invocation is aborted at its cutoff, so none outlives the answer.
 */
export const CALL_LIMITS = {
  /**
   * Milliseconds to get a socket and connect. TCP and TLS to a regional endpoint take tens of ms;
   * the SDK starts this timer when the request is made, so it also holds any wait for a free
   * socket (50 per client), which the local server shares among all its requests.
   */
  connectionTimeoutMs: 2000,
  /**
   * Milliseconds from the request to its answer's headers (the SDK throws only with
   * throwOnRequestTimeout). DynamoDB answers in single-digit ms and a 1 MB page in about 100;
   * 3 s is far past that on a loaded local engine too. A timed-out socket is destroyed, never
   * reused, and the SDK retries (LIMITS.dynamoAttempts) while the cutoff allows.
   */
  requestTimeoutMs: 3000,
  /** Milliseconds for the Parameters and Secrets extension to answer (it asks Secrets Manager, ~100 ms when cold). */
  secretTimeoutMs: 2000,
  /**
   * Every call of an invocation is aborted this long before the function's timeout, so the
   * function answers by itself (a clean 503) and never through middy's early timeout while a
   * call goes on. Building the error answer takes a few ms.
   */
  answerReserveMs: 1000,
} as const;

/**
 * What AWS itself imposes in front of and around every function (docs/decisions.md cites each).
 * The local server applies them too, so that it answers as the deployed API does.
 */
export const AWS_LIMITS = {
  /** DynamoDB: one item, attribute names and values together. */
  dynamoItemBytes: 400 * 1024,
  /** HTTP API: bodies over this are refused with 413 before any function runs. */
  gatewayPayloadBytes: 10 * 1024 * 1024,
  /** Lambda: a synchronous invocation's event (the body inside it as it travels: text or base64) and its answer. */
  lambdaPayloadBytes: 6 * 1024 * 1024,
  /** HTTP API: the longest an integration may take. */
  integrationTimeoutMs: 30_000,
  /** DynamoDB: actions in one TransactWriteItems (raised from 25 in 2022); a create batch (LIMITS.maxCreateBatch) fits one. */
  transactionActions: 100,
} as const;

/** Every function's Lambda settings (infra/service-function.ts); the local server runs with the same. */
export const FUNCTION_SETTINGS = {
  memoryMb: 512,
  /** A request that needs more is a bug to see; long bulk writes stop short of it (README). */
  timeoutSeconds: 10,
} as const;

/**
 * The AWS queue of OneBot deliveries kept while the table was unreachable (infra/onebot-queue.ts)
 * and how its consumer waits for the table (shared/onebot/replay.ts). docs/decisions.md, "OneBot
 * deliveries kept in SQS", gives the AWS sources and the arithmetic.
 */
/** The queue consumer's Lambda settings (onebot_queue in shared/manifest/functions.ts); its queue's visibility follows them. */
export const ONEBOT_QUEUE_CONSUMER = FUNCTION_SETTINGS;

export const ONEBOT_QUEUE = {
  /**
   * Seconds a received message stays hidden: six times the consumer's timeout, as AWS advises
   * for an SQS event source, so Lambda can retry a batch it was throttled on
   * (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html).
   */
  visibilitySeconds: 6 * ONEBOT_QUEUE_CONSUMER.timeoutSeconds,
  /** Seconds the consumer hides a delivery after its first receive found the table unreachable; doubled per receive. */
  firstBackoffSeconds: 60,
  /** SQS's longest visibility timeout (12 hours), the cap of the backoff. */
  maxBackoffSeconds: 12 * 3600,
  /** Days the queue keeps a delivery: under the dead-letter queue's, so a dead letter still has days there. */
  retentionDays: 7,
  /** Days the dead-letter queue keeps one, counted from when it was first sent (SQS's maximum, 14). */
  deadLetterRetentionDays: 14,
  /** Seconds of the retention left unused by the receives: polls, invocations, and a receive lost to throttling. */
  spareSeconds: 3600,
  /** Records per invocation, SQS's batch maximum without a batching window. */
  batchSize: 10,
  /**
   * Invocations of the consumer at once: a backlog drained after an outage leaves the account's
   * concurrency (1,000 by default) to the receiver, which must answer every live delivery.
   */
  maxConcurrency: 5,
} as const;

/**
 * The change feed's functions in AWS (infra/feed.ts, which holds the stream's and the queue's
 * settings: only the stack reads those): the stream's consumer (functions/feed) and the webhook
 * deliveries' attempts (functions/feed_delivery).
 */
export const FEED_CONSUMER = { memoryMb: 512, timeoutSeconds: 60 } as const;

/** One attempt per invocation: up to ATTEMPT_TIMEOUT_MS (15 s, shared/feed/schedule.ts), then the table's note of it. */
export const FEED_DELIVERY = { memoryMb: 512, timeoutSeconds: 30 } as const;

/** How many of a subscription's dead letters GET /api/feed shows, newest first: enough to tell what fails and since when. */
export const FEED_NEWEST_DEAD_LETTERS = 10;

/**
 * POST /api/feed/{subscription}/replay reads the stream, up to its 24 hours, in one request: as
 * long as the HTTP API waits for an integration (AWS_LIMITS.integrationTimeoutMs), less a second.
 */
export const FEED_REPLAY = { memoryMb: 512, timeoutSeconds: 29 } as const;

/**
 * The index build's settings (functions/index_build): each run fills pages until a few seconds
 * before this timeout and records where it stopped, so a larger table takes more runs, not a
 * longer one.
 */
export const INDEX_BUILD_SETTINGS = {
  memoryMb: 512,
  timeoutSeconds: 300,
} as const;

/**
 * API Gateway throttling (infra/api.ts). 100 requests/s steady (burst 200) is far above what
 * one team's tools send and far below what the on-demand table absorbs (4,000 writes/s on a new
 * table), so a runaway client costs at most about $0.36 an hour in HTTP API requests before it
 * is answered 429. A bulk update or delete can touch 10,000 records, so those routes get the
 * tighter limit (shared/manifest/functions.ts).
 */
export const API_THROTTLES = {
  stage: { rateLimit: 100, burstLimit: 200 },
  bulk: { rateLimit: 5, burstLimit: 10 },
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
  /**
   * How long after a first delivery an identical one (same bot, same content) can still be
   * something other than a replay: another event of the same second (two pokes; `time` is in
   * seconds) or a go-cqhttp re-send (its last comes 19.5 s after the first with its defaults,
   * shared/onebot/senders.ts). Later, the same bytes are a replay and are not stored again.
   */
  identicalWindowSeconds: 60,
  /** Identical events kept apart within the window (ids `<key>`, `<key>-1`, ...) before the ids give up and go random. */
  maxIdenticalEvents: 20,
  /**
   * With a secret, a signed event whose `time` is older than this at receipt is stored (once)
   * but never acted on: no sender posts that late (go-cqhttp's last re-send is 19.5 s after
   * the first), so it is a replay or a bot whose clock is wrong. Five minutes, the age past which
   * Slack refuses a signed request as a possible replay.
   */
  maxEventAgeSeconds: 300,
  /** Milliseconds the receiver waits for a bot's HTTP API: go-cqhttp gives up on the receiver after 5 s. */
  botApiTimeoutMs: 3000,
  /**
   * Milliseconds the receiver gives the database, from the request's arrival (API Gateway's
   * requestContext.timeEpoch), before it keeps the delivery instead and answers: go-cqhttp gives
   * up on an answer after 5 s (its smallest timeout) and re-sends; DynamoDB answers in
   * milliseconds, so only a database that hangs reaches this. A delivery whose handler starts
   * when go-cqhttp has already given up gets this much from its start (shared/onebot/receive.ts).
   */
  storeWithinMs: 4000,
  /**
   * The receiver stops its database work this long before the function's timeout to keep the
   * delivery instead (shared/onebot/keep/keep.ts): one SQS message, and an S3 object first for a body
   * over 192 KB, each one attempt within CALL_LIMITS, before the answer reserve.
   */
  keepReserveMs: 4000,
  /** Milliseconds between attempts to store events kept while the database was unreachable (local spool). */
  spoolRetryMs: 1000,
} as const;
