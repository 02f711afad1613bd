import type { RouteScope } from '../auth/scopes';
import type { SecretName } from '../config';
import { API_THROTTLES, FEED_CONSUMER, FEED_DELIVERY, FEED_REPLAY, FUNCTION_SETTINGS, INDEX_BUILD_SETTINGS, ONEBOT_QUEUE_CONSUMER } from '../limits';

/**
 * The DynamoDB actions a function may be granted; none of them scans or batches (DescribeTable
 * reads the table's description: its stream's ARN). A
 * TransactWriteItems is authorised per action it holds (AWS, "Using IAM with DynamoDB
 * transactions"): PutItem, UpdateItem, DeleteItem, ConditionCheckItem.
 */
export type DynamoAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:DescribeTable';

export type LambdaSettings = { readonly [K in keyof typeof FUNCTION_SETTINGS]: number };
export type Throttle = { readonly [K in keyof typeof API_THROTTLES.stage]: number };

/** The OpenAPI tags of operations that name no model (shared/openapi/document.ts describes each). */
export type ServiceTag = 'service' | 'onebot' | 'documentation' | 'feed';

interface Deployed {
  /** It changes stored records: a read-only model refuses it, and OpenAPI leaves it out there. */
  writes: boolean;
  /** Exactly the DynamoDB actions it sends; with none it gets no table at all (no grant, no TABLE_NAME). */
  table: ReadonlyArray<DynamoAction>;
  /** The secrets it reads. API_TOKENS is not listed: a scope that needs a token, or optionalToken, brings it. */
  secrets: ReadonlyArray<Exclude<SecretName, 'API_TOKENS'>>;
  /** Its memory and timeout, from shared/limits.ts: FUNCTION_SETTINGS unless it declares its own. */
  lambda: LambdaSettings;
  /** Its bundle carries the swagger-ui files it serves (shared/docs/assets.ts). */
  docsAssets?: true;
  /** Its bundle carries the OpenAPI document, built when bundling (shared/openapi/serve.ts). */
  openApiDocument?: true;
  /** It reads the table's stream itself (a replay from a time): the stream's read actions, its ARN from DescribeTable. */
  readsStream?: true;
  /** Deployed only where a served model has both a ttl and aggregates (infra/access.ts deployedFunctions). */
  onlyForExpiringAggregates?: true;
}

/** A function behind API Gateway routes (shared/manifest/routes.ts), its handler made by httpHandler. */
export interface HttpFunction extends Deployed {
  trigger: 'http';
  /** What a caller's token needs for every route of it (shared/auth/scopes.ts). */
  scope: RouteScope;
  /** On a model without an owner rule its routes take admin instead of `scope` (shared/access/scopes.ts); admin passes everywhere. */
  adminWithoutOwner?: true;
  /** Public, but a token shows more (health: the bots, to `read`), so it reads API_TOKENS all the same. */
  optionalToken?: true;
  /**
   * `json`: parsed with exact numbers into `request.body` before the operation runs; `raw`: the
   * operation reads `request.rawBody` itself; `none`: it takes no body. Every body is size-checked.
   */
  body: 'json' | 'raw' | 'none';
  /** `model`: tagged with the model its path names. */
  tag: ServiceTag | 'model';
  /** A tighter limit on each of its routes than the stage's. */
  throttle?: Throttle;
  /** It takes an Idempotency-Key (shared/idempotency/middleware.ts), kept in the table: needs IDEMPOTENCY_KEYS' actions. */
  idempotent?: true;
}

/** A function invoked by AWS itself, with no route. */
export interface EventFunction extends Deployed {
  trigger: 'schedule' | 'queue' | 'stream';
}

// The document and the page that shows it: public, bodiless, no table, no secret; each bundle
// carries what it serves.
const DOCUMENTATION = {
  trigger: 'http',
  scope: 'public',
  body: 'none',
  writes: false,
  tag: 'documentation',
  table: [],
  secrets: [],
} as const;

// Every record function reads its model's stored layout once per container (shared/store/layout/layout.ts).
const QUERY = ['dynamodb:Query', 'dynamodb:GetItem'] as const;
const HEALTH = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
// A write whose answer was lost is recognised by reading the item back (shared/store/write/write-token.ts);
// a batch is one TransactWriteItems of Puts, which IAM governs as PutItem; DeleteItem gives an
// idempotency key back (see IDEMPOTENCY_KEYS). Query reads a few records of a model whose stored
// layout was never recorded, to tell it (shared/store/layout/layout.ts).
const CREATE = ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:Query'] as const;
// An idempotency key is claimed and kept with PutItem, read with GetItem, given back with DeleteItem.
const IDEMPOTENCY_KEYS = ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem'] as const;
// Events are created, rules listed, and bot status created or updated.
const ONEBOT = [...CREATE, 'dynamodb:UpdateItem'] as const;

/** A descriptor as declared: without `lambda`, the function runs with FUNCTION_SETTINGS. */
type Declared<F extends Deployed> = Omit<F, 'lambda'> & { lambda?: LambdaSettings };

/**
 * Every deployed function and what it is, declared once: its handler, the CDK app (grants,
 * secrets, throttling, memory), auth, OpenAPI and the local server all read it from here.
 */
const DESCRIPTORS = {
  // Each model's stored layout and index states are part of its answer.
  models: { trigger: 'http', scope: 'read', body: 'none', writes: false, tag: 'service', table: QUERY, secrets: [] },
  health: {
    trigger: 'http',
    scope: 'public',
    optionalToken: true,
    body: 'none',
    writes: false,
    tag: 'service',
    table: HEALTH,
    secrets: [],
  },
  create: {
    trigger: 'http',
    scope: 'write',
    body: 'json',
    writes: true,
    tag: 'model',
    idempotent: true,
    table: CREATE,
    secrets: [],
  },
  get_one: { trigger: 'http', scope: 'read', body: 'json', writes: false, tag: 'model', table: QUERY, secrets: [] },
  // list signs and checks cursors; update and delete hand one out when they stop early.
  list: { trigger: 'http', scope: 'read', body: 'json', writes: false, tag: 'model', table: QUERY, secrets: ['CURSOR_SECRET'] },
  count: { trigger: 'http', scope: 'read', body: 'json', writes: false, tag: 'model', table: QUERY, secrets: [] },
  // An aggregate's counters (Query) and the model's layout, which says whether they are ready (GetItem); signs and checks cursors.
  aggregate: { trigger: 'http', scope: 'read', body: 'json', writes: false, tag: 'model', table: QUERY, secrets: ['CURSOR_SECRET'] },
  update: {
    trigger: 'http',
    scope: 'write',
    body: 'json',
    writes: true,
    tag: 'model',
    throttle: API_THROTTLES.bulk,
    idempotent: true,
    table: ['dynamodb:Query', 'dynamodb:UpdateItem', ...IDEMPOTENCY_KEYS],
    secrets: ['CURSOR_SECRET'],
  },
  // write deletes a caller's own records where an owner rule says which they are; elsewhere
  // admin, not write: a token able to wipe a model is handed out on purpose.
  delete: {
    trigger: 'http',
    scope: 'write',
    adminWithoutOwner: true,
    body: 'json',
    writes: true,
    tag: 'model',
    throttle: API_THROTTLES.bulk,
    idempotent: true,
    table: ['dynamodb:Query', ...IDEMPOTENCY_KEYS],
    secrets: ['CURSOR_SECRET'],
  },
  // Operations across models, all or none, in one TransactWriteItems; an update's record is read
  // back after it (GetItem), as is a model's stored layout (Query, GetItem; see QUERY).
  transaction: {
    trigger: 'http',
    scope: 'write',
    body: 'json',
    writes: true,
    tag: 'service',
    idempotent: true,
    table: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem', ...QUERY],
    secrets: [],
  },
  openapi: { ...DOCUMENTATION, openApiDocument: true },
  docs: { ...DOCUMENTATION, docsAssets: true },
  // Senders sign with ONEBOT_SECRET instead of a token, so the receiver checks the signature
  // over the exact bytes before it parses them. Rules act through a bot's HTTP API (ONEBOT_ACCESS_TOKEN).
  onebot: {
    trigger: 'http',
    scope: 'public',
    body: 'raw',
    writes: true,
    tag: 'onebot',
    table: ONEBOT,
    secrets: ['ONEBOT_SECRET', 'ONEBOT_ACCESS_TOKEN'],
  },
  // Runs every minute (infra/health-check.ts) and emits the metrics the health alarms watch.
  health_check: { trigger: 'schedule', writes: false, table: HEALTH, secrets: [] },
  // Records each model's layout and fills new indexes (shared/store/layout/index-build.ts): at every deploy, and every few minutes.
  index_build: {
    trigger: 'schedule',
    writes: true,
    table: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    secrets: [],
    lambda: INDEX_BUILD_SETTINGS,
  },
  // Takes expired records out of the aggregates every minute (shared/aggregates/expire.ts): the due
  // expiry markers read (Query), each record's contribution read (GetItem) and replaced in one
  // TransactWriteItems with its counters and its marker (PutItem, UpdateItem, DeleteItem).
  aggregate_expiry: {
    trigger: 'schedule',
    writes: true,
    table: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    secrets: [],
    onlyForExpiringAggregates: true,
  },
  // Stores the OneBot deliveries kept in the queue while the table was unreachable, as onebot does.
  onebot_queue: { trigger: 'queue', writes: true, table: ONEBOT, secrets: ['ONEBOT_ACCESS_TOKEN'], lambda: ONEBOT_QUEUE_CONSUMER },
  // The change feed (infra/feed.ts): the table's stream turned into changes, matched against
  // SUBSCRIPTIONS, sent to the deliveries' queue or put on a bus. The stream comes in the event
  // (the event source mapping reads it), so it touches no table, unless a model declares
  // aggregates, which it keeps: infra/access.ts KEEPS_AGGREGATES.
  feed: { trigger: 'stream', writes: false, table: [], secrets: ['SUBSCRIPTIONS'], lambda: FEED_CONSUMER },
  // One attempt per webhook delivery from the FIFO queue (shared/feed/deliver-queued.ts): a failed
  // attempt's count noted (PutItem) and read on the next receive (GetItem), forgotten when done
  // (DeleteItem), the subscription's last delivery (UpdateItem), after the last attempt a dead letter (PutItem);
  // the subscription's breaker read (GetItem), counted, opened and probed (UpdateItem), closed (DeleteItem).
  feed_delivery: {
    trigger: 'queue',
    writes: true,
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    secrets: ['SUBSCRIPTIONS'],
    lambda: FEED_DELIVERY,
  },
  // The feed's admin routes (docs/feed.md "Dead letters and replay"); each finds the deliveries'
  // queue as the consumer does (shared/feed/queue-here.ts): SQS in AWS, granted by infra/feed.ts.
  // Delivery state: the dead letters' count and newest (Query), the last delivery (GetItem).
  feed_status: { trigger: 'http', scope: 'admin', body: 'none', writes: false, tag: 'feed', table: QUERY, secrets: ['SUBSCRIPTIONS'] },
  // Dead letters read (Query) and dropped once queued again (DeleteItem); a replay from a time
  // reads the stream, as long as the HTTP API waits (FEED_REPLAY).
  feed_replay: {
    trigger: 'http',
    scope: 'admin',
    body: 'json',
    writes: true,
    tag: 'feed',
    table: ['dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:DescribeTable'],
    readsStream: true,
    secrets: ['SUBSCRIPTIONS'],
    lambda: FEED_REPLAY,
  },
} as const satisfies Record<string, Declared<HttpFunction> | Declared<EventFunction>>;

export type FunctionName = keyof typeof DESCRIPTORS;
export type HttpFunctionName = { [F in FunctionName]: (typeof DESCRIPTORS)[F]['trigger'] extends 'http' ? F : never }[FunctionName];

type Settled<T> = { readonly [K in keyof T]: T[K] & { lambda: LambdaSettings } };

/** Each descriptor with its Lambda settings: its own, or FUNCTION_SETTINGS. */
function settled<T extends Record<string, Declared<Deployed>>>(declared: T): Settled<T> {
  return Object.fromEntries(Object.entries(declared).map(([name, descriptor]) => [name, { lambda: FUNCTION_SETTINGS, ...descriptor }])) as Settled<T>;
}

export const FUNCTION_DESCRIPTORS: { readonly [F in FunctionName]: F extends HttpFunctionName ? HttpFunction : EventFunction } = settled(DESCRIPTORS);

/** Every deployed function: `functions/<name>/handler.ts` each. */
export const FUNCTIONS = Object.keys(FUNCTION_DESCRIPTORS) as ReadonlyArray<FunctionName>;

const isHttpFunction = (fn: FunctionName): fn is HttpFunctionName => FUNCTION_DESCRIPTORS[fn].trigger === 'http';
export const HTTP_FUNCTIONS: ReadonlyArray<HttpFunctionName> = FUNCTIONS.filter(isHttpFunction);

/** A name from outside the type checker (a folder, a script's argument) checked against the table. */
export function functionNamed(name: string): FunctionName {
  const found = FUNCTIONS.find((fn) => fn === name);
  if (!found) throw new Error(`no function ${name} in shared/manifest/functions.ts`);
  return found;
}
