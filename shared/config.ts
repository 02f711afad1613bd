import { resolve } from 'node:path';

/**
 * Every environment variable the functions and the local server read, parsed here and nowhere
 * else (scripts/ keep their own command-line and start-up settings). Two kinds:
 * - `settings()`: the table and the engine, read and checked once per process (a Lambda
 *   container or the local server), since the document client made from them lives as long;
 * - the accessors below it, read on each use: they are cheap, and the tests and the local server
 *   change these between requests (a token table, an allow-list, a retention, the log level).
 * Plain code, not zod: every bundle loads this file (the logger reads LOG_LEVEL), the docs
 * function's too, which has no other use for a schema library.
 */
export interface Settings {
  TABLE_NAME: string;
  DYNAMODB_ENDPOINT?: string;
  AWS_REGION: string;
  /** Lambda's own credentials; without them a DYNAMODB_ENDPOINT is a local engine (store/client.ts). */
  AWS_ACCESS_KEY_ID?: string;
}

/**
 * The names of the variables a deployment sets, spelt once: the stack (infra/) writes each into
 * the environment of the functions that read it here.
 */
export const DEPLOYED_VARIABLES = {
  tableName: 'TABLE_NAME',
  docsAssetsDir: 'DOCS_ASSETS_DIR',
  corsOrigins: 'CORS_ORIGINS',
  jwtScopePrefix: 'JWT_SCOPE_PREFIX',
  onebotSelfIds: 'ONEBOT_SELF_IDS',
  onebotApiRoots: 'ONEBOT_API_ROOTS',
  onebotQueueUrl: 'ONEBOT_QUEUE_URL',
  onebotBucket: 'ONEBOT_BUCKET',
  feedQueueUrl: 'FEED_QUEUE_URL',
  feedBusName: 'FEED_BUS_NAME',
} as const;

/** The table `npm start` and a function without TABLE_NAME use. */
export const DEFAULT_TABLE_NAME = 'recordgate';

/** Why `name` is not a DynamoDB table name (3-255 letters, digits, `_`, `.` or `-`), or undefined when it is one. */
export function tableNameProblem(name: string): string | undefined {
  return /^[a-zA-Z0-9_.-]{3,255}$/.test(name) ? undefined : 'is not a DynamoDB table name; use 3-255 letters, digits, _ . or -';
}

class SettingError extends Error {
  override readonly name = 'SettingError';
}

function readSettings(): Settings {
  const { DYNAMODB_ENDPOINT, AWS_REGION = 'us-east-1', AWS_ACCESS_KEY_ID } = process.env;
  const TABLE_NAME = process.env[DEPLOYED_VARIABLES.tableName] ?? DEFAULT_TABLE_NAME;
  const problem = tableNameProblem(TABLE_NAME);
  if (problem) throw new SettingError(`${DEPLOYED_VARIABLES.tableName} ${JSON.stringify(TABLE_NAME)} ${problem}`);
  if (DYNAMODB_ENDPOINT !== undefined && !URL.canParse(DYNAMODB_ENDPOINT))
    throw new SettingError(`DYNAMODB_ENDPOINT ${JSON.stringify(DYNAMODB_ENDPOINT)} is not a URL`);
  return { TABLE_NAME, DYNAMODB_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID };
}

let cached: Settings | undefined;

/** Settings from the environment, read once per process (a Lambda container or the local server). */
export function settings(): Settings {
  cached ??= readSettings();
  return cached;
}

const env = (name: string): string | undefined => process.env[name];
const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Lambda sets AWS_LAMBDA_FUNCTION_NAME; the local server never does: a deployed function never runs open. */
export const inLambda = (): boolean => Boolean(env('AWS_LAMBDA_FUNCTION_NAME'));

/** The identity provider's prefix on this service's JWT scopes (`recordgate/read`), stripped before use. */
export const jwtScopePrefix = (): string => env(DEPLOYED_VARIABLES.jwtScopePrefix) ?? '';

/** The settings that are secrets in AWS: `NAME_SECRET_ARN` there (shared/secrets.ts), `NAME` locally. */
export type SecretName = 'API_TOKENS' | 'CURSOR_SECRET' | 'ONEBOT_SECRET' | 'ONEBOT_ACCESS_TOKEN' | 'SUBSCRIPTIONS';

/** Where a deployment names a secret's ARN. */
export const secretArnVariable = (name: SecretName): `${SecretName}_SECRET_ARN` => `${name}_SECRET_ARN`;

export const secretSource = (name: SecretName): { arn?: string; value?: string } => ({ arn: env(secretArnVariable(name)) || undefined, value: env(name) });

/**
 * Where the AWS Parameters and Secrets Lambda Extension listens (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT,
 * default 2773) and the token it asks for (the function's AWS_SESSION_TOKEN), per AWS's guide:
 * https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
 */
export const secretsExtension = (): { port: string; token: string } => ({
  port: env('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT') || '2773',
  token: env('AWS_SESSION_TOKEN') ?? '',
});

/** Bot accounts the OneBot receiver accepts (ONEBOT_SELF_IDS, comma-separated); empty: any. */
export const onebotSelfIds = (): string[] => list(env(DEPLOYED_VARIABLES.onebotSelfIds));

/** Days heartbeat and lifecycle events are kept (ONEBOT_META_RETENTION_DAYS, default 7); shared/onebot/store/retention.ts says what 0 or junk means. */
export const onebotMetaRetentionDays = (): number => Number(env('ONEBOT_META_RETENTION_DAYS') ?? 7);

/** ONEBOT_API_ROOTS as text, '' when unset; shared/onebot/decide/api-call.ts parses it (and keeps the result while the text stays the same). */
export const onebotApiRootsText = (): string => env(DEPLOYED_VARIABLES.onebotApiRoots)?.trim() ?? '';

/** Where a deployed receiver keeps deliveries during a database outage, and bodies too big for a record. */
export const onebotQueueUrl = (): string | undefined => env(DEPLOYED_VARIABLES.onebotQueueUrl) || undefined;
export const onebotBucket = (): string | undefined => env(DEPLOYED_VARIABLES.onebotBucket) || undefined;

/** The SQS FIFO queue the change feed's consumer leaves webhook deliveries in (shared/feed/queue-sqs.ts), deployed only. */
export const feedQueueUrl = (): string | undefined => env(DEPLOYED_VARIABLES.feedQueueUrl) || undefined;

/** The EventBridge bus the stack made for the change feed: where a subscription's `bus: "default"` goes (infra/feed.ts). */
export const feedBusName = (): string | undefined => env(DEPLOYED_VARIABLES.feedBusName) || undefined;

/**
 * Test runs only (docs/testing.md, "Timing"): how long one SDK call may wait for its answer
 * (TEST_CALL_TIMEOUT_MS, milliseconds), set by a test that measured the machine needs more than
 * CALL_LIMITS.requestTimeoutMs. Unset in every deployment and by `npm start`. Read per call, since
 * a test sets it after its seed.
 */
export const testCallTimeoutMs = (): number | undefined => {
  const ms = Number(env('TEST_CALL_TIMEOUT_MS'));
  return ms > 0 ? ms : undefined;
};

/** The local data directory (DATA_DIR, default `.data`), absolute. */
export const dataDir = (): string => resolve(env('DATA_DIR') ?? '.data');

/** Where the docs function's bundle keeps Swagger UI's files (DOCS_ASSETS_DIR); unset: the installed package. */
export const docsAssetsDir = (): string | undefined => env(DEPLOYED_VARIABLES.docsAssetsDir) || undefined;

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The lowest level logged (LOG_LEVEL, default `info`); `silent` logs nothing, which the test
 * runs use (test/support/quiet-logs.ts). Read per log line, so a test can raise it for the lines
 * it asserts. An unknown value counts as `info`: a typo must not cost the error lines that
 * would show it, and the logger is the one place that cannot report a bad setting by throwing.
 */
export function logLevel(): LogLevel {
  const level = env('LOG_LEVEL')?.toLowerCase();
  return LOG_LEVELS.find((known) => known === level) ?? 'info';
}

/**
 * The browser origins allowed to call the API (CORS_ORIGINS, comma-separated; `*` for any, or
 * `https://*.example.com`). Unset: CORS is off, and browsers keep pages of other origins out
 * (docs/decisions.md). Read when a function's handler is built.
 */
export const corsOrigins = (): string[] => list(env(DEPLOYED_VARIABLES.corsOrigins));
