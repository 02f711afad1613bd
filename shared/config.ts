import { resolve } from 'node:path';
import * as z from './zod';

/**
 * Every environment variable the functions and the local server read, parsed here and nowhere
 * else (scripts/ keep their own command-line and start-up settings). Two kinds:
 * - `settings()`: the table and the engine, read and checked once per process (a Lambda
 *   container or the local server), since the document client made from them lives as long;
 * - the accessors below it, read on each use: they are cheap, and the tests and the local server
 *   change these between requests (a token table, an allow-list, a retention, the log level).
 */
const settingsSchema = z.object({
  TABLE_NAME: z._default(z.string().check(z.minLength(3)), 'recordgate'),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
  /** Lambda's own credentials; without them a DYNAMODB_ENDPOINT is a local engine (store/client.ts). */
  AWS_ACCESS_KEY_ID: z.optional(z.string()),
});

export type Settings = z.infer<typeof settingsSchema>;

let cached: Settings | undefined;

/** Settings from the environment, read once per process (a Lambda container or the local server). */
export function settings(): Settings {
  cached ??= settingsSchema.parse(process.env);
  return cached;
}

const env = (name: string): string | undefined => process.env[name];
const list = (text: string | undefined): string[] => (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** Lambda sets AWS_LAMBDA_FUNCTION_NAME; the local server never does: a deployed function never runs open. */
export const inLambda = (): boolean => Boolean(env('AWS_LAMBDA_FUNCTION_NAME'));

/** The identity provider's prefix on this service's JWT scopes (`recordgate/read`), stripped before use. */
export const jwtScopePrefix = (): string => env('JWT_SCOPE_PREFIX') ?? '';

/** The settings that are secrets in AWS: `NAME_SECRET_ARN` there (shared/secrets.ts), `NAME` locally. */
export type SecretName = 'API_TOKENS' | 'CURSOR_SECRET' | 'ONEBOT_SECRET' | 'ONEBOT_ACCESS_TOKEN';

export const secretSource = (name: SecretName): { arn?: string; value?: string } => ({ arn: env(`${name}_SECRET_ARN`) || undefined, value: env(name) });

/** Bot accounts the OneBot receiver accepts (ONEBOT_SELF_IDS, comma-separated); empty: any. */
export const onebotSelfIds = (): string[] => list(env('ONEBOT_SELF_IDS'));

/** Days heartbeat and lifecycle events are kept (ONEBOT_META_RETENTION_DAYS, default 7); shared/onebot/settings.ts says what 0 or junk means. */
export const onebotMetaRetentionDays = (): number => Number(env('ONEBOT_META_RETENTION_DAYS') ?? 7);

/** ONEBOT_API_ROOTS as text, '' when unset; shared/onebot/bot-api.ts parses it (and keeps the result while the text stays the same). */
export const onebotApiRootsText = (): string => env('ONEBOT_API_ROOTS')?.trim() ?? '';

/** Where a deployed receiver keeps deliveries during a database outage, and bodies too big for a record. */
export const onebotQueueUrl = (): string | undefined => env('ONEBOT_QUEUE_URL') || undefined;
export const onebotBucket = (): string | undefined => env('ONEBOT_BUCKET') || undefined;

/** The local data directory (DATA_DIR, default `.data`), absolute. */
export const dataDir = (): string => resolve(env('DATA_DIR') ?? '.data');

/** Where the docs function's bundle keeps Swagger UI's files (DOCS_ASSETS_DIR); unset: the installed package. */
export const docsAssetsDir = (): string | undefined => env('DOCS_ASSETS_DIR') || undefined;

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const logLevelSchema = z.enum(LOG_LEVELS);

/**
 * The lowest level logged (LOG_LEVEL, default `info`); `silent` logs nothing, which the test
 * runs use (test/support/quiet-logs.ts). Read per log line, so a test can raise it for the lines
 * it asserts. An unknown value counts as `info`: a typo must not cost the error lines that
 * would show it, and the logger is the one place that cannot report a bad setting by throwing.
 */
export const logLevel = (): LogLevel => logLevelSchema.safeParse(env('LOG_LEVEL')?.toLowerCase()).data ?? 'info';

/**
 * The browser origins allowed to call the API (CORS_ORIGINS, comma-separated; `*` for any, or
 * `https://*.example.com`). Unset: CORS is off, and browsers keep pages of other origins out
 * (docs/decisions.md). Read when a function's handler is built.
 */
export const corsOrigins = (): string[] => list(env('CORS_ORIGINS'));
