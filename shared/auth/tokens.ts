import { createHash, timingSafeEqual } from 'node:crypto';
import { secretSource } from '../config';
import * as zm from '../zod';
import { secretSetting } from '../secrets';
import { scopeSchema, type Scope } from './scopes';

/** `API_TOKENS`: a JSON object of token -> scopes, e.g. {"s3cr3t": ["read", "write", "admin"]}. */
export const tokenTableSchema = zm.record(
  zm.string().check(zm.minLength(1), zm.regex(/^\S+$/, 'a token cannot contain whitespace')),
  zm.array(scopeSchema).check(zm.minLength(1)),
);

interface TokenEntry {
  hash: Buffer;
  scopes: ReadonlySet<Scope>;
}

export type TokenTable = ReadonlyArray<TokenEntry>;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Thrown when API_TOKENS is set but unusable: the service then refuses instead of running open. */
export class TokenConfigError extends Error {
  override readonly name = 'TokenConfigError';
}

export function parseTokenTable(raw: string): TokenTable {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new TokenConfigError('API_TOKENS is not valid JSON');
  }
  const result = tokenTableSchema.safeParse(json);
  if (!result.success) {
    throw new TokenConfigError(`API_TOKENS must be a JSON object of token -> ["read" | "write" | "admin", ...]: ${result.error.issues[0]?.message}`);
  }
  return Object.entries(result.data).map(([token, scopes]) => ({ hash: sha256(token), scopes: new Set(scopes) }));
}

/**
 * The scopes of a presented token, or undefined. Every entry is compared, each as a
 * fixed-length hash with timingSafeEqual, so the time taken says nothing about how much of a
 * token was right or which entry matched.
 */
export function scopesOf(table: TokenTable, token: string): ReadonlySet<Scope> | undefined {
  const presented = sha256(token);
  let found: ReadonlySet<Scope> | undefined;
  for (const entry of table) {
    const equal = timingSafeEqual(entry.hash, presented);
    found = equal ? entry.scopes : found;
  }
  return found;
}

/** Whether this process is told to check tokens at all (locally the env var, in AWS the secret). */
export function tokensConfigured(): boolean {
  const { arn, value } = secretSource('API_TOKENS');
  return Boolean(arn) || Boolean(value);
}

// The parsed table for the secret text it came from: a rotated secret (secretSetting re-reads
// it every five minutes) is parsed once, and an unchanged one never again.
let cached: { raw: string; table: TokenTable } | undefined;

/** The token table of this container, or undefined when no token is configured (open mode). */
export async function loadTokenTable(): Promise<TokenTable | undefined> {
  if (!tokensConfigured()) return undefined;
  const raw = (await secretSetting('API_TOKENS')) ?? '';
  if (cached?.raw !== raw) cached = { raw, table: parseTokenTable(raw) };
  return cached.table;
}
