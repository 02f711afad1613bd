import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { inLambda, jwtScopePrefix } from '../config';
import { ApiError } from '../errors';
import { bearerToken } from './bearer';
import { isLoopback } from './loopback';
import { scopeSchema, tokenScopeOf, type RouteScope, type Scope } from './scopes';
import { claimRecord } from './claims';
import { entryOf, loadTokenTable } from './tokens';

export interface Caller {
  scopes: ReadonlySet<Scope>;
  /** `loopback`: no token is configured and the request came from this machine (local open mode). */
  via: 'token' | 'loopback' | 'jwt';
  /** Who it is, as far as the credential tells: what a caller's idempotency keys are kept under. Never the token itself. */
  subject: string;
  /** The subject an owner rule stores and compares: the JWT's `sub`, or the API_TOKENS entry's; undefined when the credential names none. */
  sub?: string;
  /** Claims a tenant or field rule reads, each a string: the JWT's verified claims, or the API_TOKENS entry's. */
  claims: Readonly<Record<string, string>>;
}

interface JwtContext {
  scopes?: string[] | null;
  claims?: Record<string, unknown>;
}

/**
 * A JWT that API Gateway's authorizer already verified (the stack's jwtIssuer switch). Only API
 * Gateway can put `authorizer.jwt` into the event, so its scopes are taken as they are, less the
 * identity provider's prefix (JWT_SCOPE_PREFIX); scopes of other services are ignored.
 */
function jwtCaller(event: APIGatewayProxyEventV2): Caller | undefined {
  const jwt = (event.requestContext as { authorizer?: { jwt?: JwtContext } }).authorizer?.jwt;
  if (!jwt) return undefined;
  const prefix = jwtScopePrefix();
  const granted = jwt.scopes ?? String(jwt.claims?.scope ?? '').split(' ');
  const scopes = granted
    .filter((s) => s.startsWith(prefix))
    .map((s) => scopeSchema.safeParse(s.slice(prefix.length)))
    .flatMap((r) => (r.success ? [r.data] : []));
  const claims = stringClaims(jwt.claims ?? {});
  return {
    scopes: new Set(scopes),
    via: 'jwt',
    subject: `jwt:${digest(`${String(jwt.claims?.iss ?? '')} ${String(jwt.claims?.sub ?? '')}`)}`,
    sub: claims.sub || undefined,
    claims,
  };
}

/**
 * The claims a rule can compare: strings as they are, numbers as their text (an HTTP API passes
 * every claim to Lambda as a string); objects and arrays are left out, never flattened into a
 * string a rule could match by accident.
 */
function stringClaims(claims: Record<string, unknown>): Record<string, string> {
  const kept = claimRecord();
  for (const [name, value] of Object.entries(claims)) {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) kept[name] = String(value);
  }
  return kept;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);

const EVERY_SCOPE: ReadonlySet<Scope> = new Set(scopeSchema.options);

const unauthorized = (message: string, challenge = 'Bearer') => new ApiError('unauthorized', message, {}, { 'www-authenticate': challenge });

/**
 * Who is calling. With no token configured, a Lambda refuses everyone (a deployed stack never
 * runs open) and the local server lets only loopback clients in. The local server never sets
 * AWS_LAMBDA_FUNCTION_NAME, which is how the two are told apart.
 */
export async function authenticate(event: APIGatewayProxyEventV2): Promise<Caller> {
  const viaJwt = jwtCaller(event);
  if (viaJwt) return viaJwt;
  const table = await loadTokenTable();
  if (!table) {
    if (inLambda()) throw unauthorized('No API token is configured for this deployment; every request is refused');
    if (isLoopback(event.requestContext?.http?.sourceIp)) return { scopes: EVERY_SCOPE, via: 'loopback', subject: 'loopback', claims: claimRecord() };
    throw unauthorized('No API token is configured: this server answers loopback clients only');
  }
  const token = bearerToken(event.headers);
  if (token === undefined) throw unauthorized('Authentication required: send Authorization: Bearer <token>');
  const entry = entryOf(table, token);
  if (!entry) throw unauthorized('The bearer token is not valid', 'Bearer error="invalid_token"');
  return { scopes: entry.scopes, via: 'token', subject: `token:${digest(token)}`, sub: entry.sub, claims: entry.claims };
}

export function requireScope(caller: Caller, scope: Scope): void {
  if (caller.scopes.has(scope)) return;
  throw new ApiError(
    'forbidden',
    `This request needs a token with the ${scope} scope`,
    { required_scope: scope },
    {
      'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
    },
  );
}

/**
 * The caller, if `scope` (the serving function's, shared/manifest/functions.ts) lets them in;
 * undefined for a public function, which never looks at a token. `scopeOf`, where given, says
 * what the request takes of this caller instead (a delete's depends on its model). Which
 * function serves the event was settled before (shared/http/middleware/route-guard.ts): a route
 * key it does not serve never gets here.
 */
export async function authorizeScope(
  event: APIGatewayProxyEventV2,
  scope: RouteScope,
  scopeOf?: (caller: Caller) => Promise<Scope>,
): Promise<Caller | undefined> {
  const needed = tokenScopeOf(scope);
  if (needed === undefined) return undefined;
  const caller = await authenticate(event);
  requireScope(caller, scopeOf ? await scopeOf(caller) : needed);
  return caller;
}
