import type { RouteScope } from '../auth/scopes';

/**
 * The route table: every route of the service and the function that answers it. The local
 * server, the CDK HTTP API and the OpenAPI document are all generated from this list.
 */
export type FunctionName =
  | 'models' | 'health' | 'create' | 'get_one' | 'list' | 'count' | 'update' | 'delete' | 'fallback'
  | 'openapi' | 'docs' | 'onebot';

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  function: FunctionName;
  summary: string;
  /** The token scope the route needs (shared/auth); routes without one are public. */
  scope?: RouteScope;
}

const recordOperation = (fn: FunctionName, scope: RouteScope, summary: string): Route => ({
  method: 'POST', path: `/api/db/{model_name}/${fn}`, function: fn, scope, summary,
});

export const ROUTES: ReadonlyArray<Route> = [
  { method: 'GET', path: '/api/db/models', function: 'models', scope: 'read', summary: 'List the models and their fields' },
  { method: 'GET', path: '/api/db/health', function: 'health', scope: 'public', summary: 'Check that the database answers' },
  recordOperation('create', 'write', 'Create one record or up to 100'),
  recordOperation('get_one', 'read', 'Get the first record matching filters'),
  recordOperation('list', 'read', 'List records page by page'),
  recordOperation('count', 'read', 'Count matching records exactly'),
  recordOperation('update', 'write', 'Update every record matching filters'),
  recordOperation('delete', 'admin', 'Delete every record matching filters'),
  { method: 'GET', path: '/openapi.json', function: 'openapi', scope: 'public', summary: 'This API as an OpenAPI 3.1 document' },
  { method: 'GET', path: '/docs', function: 'docs', scope: 'public', summary: 'Interactive API documentation (Swagger UI)' },
  { method: 'GET', path: '/docs/{asset}', function: 'docs', scope: 'public', summary: 'A file of the documentation page' },
  // OneBot 11 senders authenticate by X-Signature, not a bearer token; NoneBot's three paths plus the old root URL.
  ...['/', '/onebot/v11/', '/onebot/v11/http', '/onebot/v11/http/'].map((path): Route => ({
    method: 'POST', path, function: 'onebot', scope: 'public', summary: 'Receive a OneBot 11 event (HTTP POST)',
  })),
];

/** Every function deployed: one per route plus the fallback that answers unknown routes. */
export const FUNCTIONS: ReadonlyArray<FunctionName> = [...new Set([...ROUTES.map((r) => r.function), 'fallback' as const])];

export const routeKey = (route: Route): string => `${route.method} ${route.path}`;

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong_method'; allowed: string[] }
  | { kind: 'none' };

function pattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
}

const compiled = ROUTES.map((route) => ({ route, regex: pattern(route.path) }));

/** A path segment decoded; one with broken percent-encoding stays as sent (and names nothing). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The route for a method and path, the methods a path allows, or nothing. */
export function matchRoute(method: string, path: string): RouteMatch {
  const hits = compiled.map(({ route, regex }) => ({ route, match: regex.exec(path) })).filter((h) => h.match);
  const exact = hits.find((h) => h.route.method === method.toUpperCase());
  if (exact) {
    const params = Object.fromEntries(Object.entries(exact.match!.groups ?? {}).map(([k, v]) => [k, decodeSegment(v)]));
    return { kind: 'found', route: exact.route, params };
  }
  if (hits.length > 0) return { kind: 'wrong_method', allowed: [...new Set(hits.map((h) => h.route.method))] };
  return { kind: 'none' };
}
