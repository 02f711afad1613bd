import { tokenScopeOf, type RouteScope } from '../auth/scopes';
import { FUNCTION_DESCRIPTORS, HTTP_FUNCTIONS, type HttpFunctionName } from './functions';

/**
 * The route table: every route of the service and the function that answers it. The local
 * server, the CDK HTTP API and the OpenAPI document are all generated from this list; what each
 * function is (its scope among the rest) is in shared/manifest/functions.ts.
 */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  function: HttpFunctionName;
  summary: string;
  /** Its function's scope (shared/auth/scopes.ts). */
  scope: RouteScope;
}

type RouteDeclaration = Omit<Route, 'scope'>;

const recordRoute = (fn: HttpFunctionName, summary: string): RouteDeclaration => ({
  method: 'POST',
  path: `/api/db/{model_name}/${fn}`,
  function: fn,
  summary,
});

const DECLARED: ReadonlyArray<RouteDeclaration> = [
  { method: 'GET', path: '/api/db/models', function: 'models', summary: 'List the models and their fields' },
  { method: 'GET', path: '/api/db/health', function: 'health', summary: 'Check that the database answers' },
  recordRoute('create', 'Create one record or up to 100'),
  recordRoute('get_one', 'Get the first record matching filters'),
  recordRoute('list', 'List records page by page'),
  recordRoute('count', 'Count matching records exactly'),
  recordRoute('aggregate', "Read a declared aggregate's groups: counts and sums"),
  recordRoute('update', 'Update every record matching filters'),
  recordRoute('delete', 'Delete every record matching filters'),
  { method: 'POST', path: '/api/db/transaction', function: 'transaction', summary: 'Apply up to 100 operations across models, all or none' },
  { method: 'GET', path: '/api/feed', function: 'feed_status', summary: "Each change feed subscription's delivery state" },
  {
    method: 'POST',
    path: '/api/feed/{subscription}/replay',
    function: 'feed_replay',
    summary: "Send a subscription's dead letters, or the changes since a time, again",
  },
  { method: 'GET', path: '/openapi.json', function: 'openapi', summary: 'This API as an OpenAPI 3.1 document' },
  { method: 'GET', path: '/docs', function: 'docs', summary: 'Interactive API documentation (Swagger UI)' },
  { method: 'GET', path: '/docs/{asset}', function: 'docs', summary: 'A file of the documentation page' },
  // NoneBot's three paths plus the old root URL.
  ...['/', '/onebot/v11/', '/onebot/v11/http', '/onebot/v11/http/'].map(
    (path): RouteDeclaration => ({
      method: 'POST',
      path,
      function: 'onebot',
      summary: 'Receive a OneBot 11 event (HTTP POST)',
    }),
  ),
];

export const ROUTES: ReadonlyArray<Route> = DECLARED.map((route) => ({ ...route, scope: FUNCTION_DESCRIPTORS[route.function].scope }));

for (const fn of HTTP_FUNCTIONS) {
  if (!ROUTES.some((r) => r.function === fn)) throw new Error(`${fn} is an HTTP function with no route in ROUTES: nothing would reach it`);
}

/**
 * The function behind API Gateway's `$default` route. HTTP API route keys cannot end in "/" and
 * a request for `/a/` does not match the route `/a` (docs/decisions.md), so the routes whose
 * path ends in "/" are served through `$default`; the same function answers every other
 * unmatched request with the 404/405 envelope. The OneBot receiver is that function: it is the
 * only one with such paths, and unknown requests cost it no data access.
 */
export const DEFAULT_ROUTE_FUNCTION: HttpFunctionName = 'onebot';
export const DEFAULT_ROUTE_KEY = '$default';

/** A path API Gateway accepts in a route key: "/" itself, or a path not ending in "/". */
export const isRouteKeyPath = (path: string): boolean => path === '/' || !path.endsWith('/');

export const routeKey = (route: Route): string => `${route.method} ${route.path}`;

/** The routes declared in API Gateway, one per route key. */
export const KEYED_ROUTES: ReadonlyArray<Route> = ROUTES.filter((r) => isRouteKeyPath(r.path));

/** The routes only `$default` reaches: served by DEFAULT_ROUTE_FUNCTION, matched by the exact raw path. */
export const DEFAULT_ROUTES: ReadonlyArray<Route> = ROUTES.filter((r) => !isRouteKeyPath(r.path));

for (const route of DEFAULT_ROUTES) {
  if (route.function !== DEFAULT_ROUTE_FUNCTION || tokenScopeOf(route.scope) !== undefined) {
    throw new Error(`${routeKey(route)} ends in "/", so only $default reaches it: it must be a public route of ${DEFAULT_ROUTE_FUNCTION}`);
  }
}

/** The route keys a function is deployed behind; a function answers no others (fail closed). */
export function routeKeysOf(fn: HttpFunctionName): string[] {
  const keys = KEYED_ROUTES.filter((r) => r.function === fn).map(routeKey);
  return fn === DEFAULT_ROUTE_FUNCTION ? [...keys, DEFAULT_ROUTE_KEY] : keys;
}

/** The declared route a route key names, or undefined (`$default` names none). */
export const routeOfKey = (key: string | undefined): Route | undefined => KEYED_ROUTES.find((r) => routeKey(r) === key);

const patterns = new Map<string, RegExp>();

/** A path template as a regular expression, built once per template: `{name}` takes one whole, non-empty segment. */
export function pathPattern(path: string): RegExp {
  let regex = patterns.get(path);
  if (!regex) {
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
    regex = new RegExp(`^${source}$`);
    patterns.set(path, regex);
  }
  return regex;
}

/** The `$default`-only route a request names exactly, if any. */
export const defaultRouteFor = (method: string, rawPath: string): Route | undefined => DEFAULT_ROUTES.find((r) => r.method === method && r.path === rawPath);

/** The methods the route table has for a path, for a 405's Allow header (any spelling the table has). */
export function methodsFor(rawPath: string): string[] {
  return [...new Set(ROUTES.filter((r) => pathPattern(r.path).test(rawPath)).map((r) => r.method))];
}
