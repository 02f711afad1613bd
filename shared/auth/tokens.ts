import { createHash, timingSafeEqual } from 'node:crypto';
import { secretSource } from '../config';
import * as zm from '../zod';
import { secretSetting } from '../secrets';
import { CLAIM_NAME, claimRecord } from './claims';
import { scopeSchema, type Scope } from './scopes';

const tokenSchema = zm.string().check(zm.minLength(1), zm.regex(/^\S+$/, 'a token cannot contain whitespace'));
const scopesSchema = zm.array(scopeSchema).check(zm.minLength(1));
const claimNameSchema = zm.string().check(
  zm.regex(CLAIM_NAME, 'a claim name is 1 to 128 visible ASCII characters'),
  // One subject per entry: a second one among the claims could tell a rule otherwise.
  zm.refine((name) => name !== 'sub', 'the subject goes in "sub", not among the claims'),
);

/**
 * An `API_TOKENS` entry in the object form: its scopes, the subject an owner rule stores and
 * compares, and the claims a tenant or field rule reads, each a string (docs/security.md). The
 * list form, scopes alone, is the form before issue 33 and stays valid.
 */
const objectEntrySchema = zm.strictObject({
  scopes: scopesSchema,
  sub: zm.optional(zm.string().check(zm.minLength(1))),
  claims: zm.optional(zm.record(claimNameSchema, zm.string().check(zm.minLength(1)))),
});

/** What a token stands for; `claims` holds `sub` too when there is one, as a JWT's claims do. */
export interface TokenEntry {
  scopes: ReadonlySet<Scope>;
  sub?: string;
  claims: Readonly<Record<string, string>>;
}

interface HashedEntry extends TokenEntry {
  hash: Buffer;
}

export type TokenTable = ReadonlyArray<HashedEntry>;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Thrown when API_TOKENS is set but unusable: the service then refuses instead of running open. */
export class TokenConfigError extends Error {
  override readonly name = 'TokenConfigError';
}

const FORM = 'API_TOKENS is a JSON object of token -> ["read" | "write" | "admin", ...] or {"scopes": [...], "sub": "...", "claims": {"name": "value"}}';

/** An entry read, or its first problem, by its path inside the entry: never the token, which is the entry's key. */
function readEntry(raw: unknown): TokenEntry | string {
  const list = Array.isArray(raw);
  const result = list ? zm.safeParse(scopesSchema, raw) : zm.safeParse(objectEntrySchema, raw);
  if (!result.success) {
    const [issue] = result.error.issues;
    // A claim's name that is refused says why in the issue under zod's own "Invalid key in record".
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return `${[...(list ? ['scopes'] : []), ...issue.path].map(String).join('.') || 'the entry'}: ${message}`;
  }
  if (Array.isArray(result.data)) return { scopes: new Set(result.data), claims: claimRecord() };
  const { scopes, sub, claims } = result.data;
  return { scopes: new Set(scopes), sub, claims: claimRecord(claims ?? {}, sub === undefined ? {} : { sub }) };
}

/**
 * The table of an API_TOKENS text. A refusal names the entry by its position (the first is 1),
 * never by its token: the message is printed at start and logged by a Lambda.
 */
export function parseTokenTable(raw: string): TokenTable {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new TokenConfigError('API_TOKENS is not valid JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new TokenConfigError(FORM);
  const entries = Object.entries(json);
  return entries.map(([token, value], i) => {
    const where = `API_TOKENS entry ${i + 1} of ${entries.length}`;
    if (!tokenSchema.safeParse(token).success) throw new TokenConfigError(`${where}: the token must be 1 or more characters without whitespace`);
    const entry = readEntry(value);
    if (typeof entry === 'string') throw new TokenConfigError(`${where}: ${entry}; ${FORM}`);
    return { hash: sha256(token), ...entry };
  });
}

/**
 * The entry of a presented token, or undefined. Every entry is compared, each as a fixed-length
 * hash with timingSafeEqual, so the time taken says nothing about how much of a token was right
 * or which entry matched.
 */
export function entryOf(table: TokenTable, token: string): TokenEntry | undefined {
  const presented = sha256(token);
  let found: TokenEntry | undefined;
  for (const entry of table) {
    const equal = timingSafeEqual(entry.hash, presented);
    found = equal ? entry : found;
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
