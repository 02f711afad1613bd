import { DEFAULT_ROUTE_FUNCTION, DEFAULT_ROUTE_KEY, KEYED_ROUTES, pathPattern, routeKey, type Route } from '../../shared/manifest/routes';
import type { HttpFunctionName } from '../../shared/manifest/functions';

/**
 * API Gateway's route selection, for what stands in for it: the local server, the benchmarks and
 * the artifact tests (which select over the synthesized template's route keys). In AWS API
 * Gateway itself selects, so no deployed function loads this.
 */

/** A path segment decoded; one with broken percent-encoding stays as sent (and names nothing). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface KeyMatch<T> {
  target: T;
  params: Record<string, string>;
}

/**
 * API Gateway's HTTP API route selection over route keys: the method and the raw path must
 * match a key exactly, `{name}` takes one non-empty segment, a literal segment wins over a
 * variable one; nothing is folded (no trailing slash, no `//`, no case). No match is `$default`.
 */
export function selectRoute<T>(routes: ReadonlyArray<{ key: string; target: T }>, method: string, rawPath: string): KeyMatch<T> | undefined {
  let best: { target: T; match: RegExpExecArray; variables: number } | undefined;
  for (const { key, target } of routes) {
    const space = key.indexOf(' ');
    if (space < 0 || key.slice(0, space) !== method) continue;
    const path = key.slice(space + 1);
    const match = pathPattern(path).exec(rawPath);
    const variables = (path.match(/\{/g) ?? []).length;
    if (match && (!best || variables < best.variables)) best = { target, match, variables };
  }
  if (!best) return undefined;
  return { target: best.target, params: Object.fromEntries(Object.entries(best.match.groups ?? {}).map(([k, v]) => [k, decodeSegment(v)])) };
}

const KEYED = KEYED_ROUTES.map((route) => ({ key: routeKey(route), target: route }));

/** The deployed route a request reaches, or undefined when API Gateway would send it to `$default`. */
export const routeFor = (method: string, rawPath: string): KeyMatch<Route> | undefined => selectRoute(KEYED, method, rawPath);

/** Where API Gateway sends a request: a route key and its function, or `$default` and its function. */
export function dispatch(method: string, rawPath: string): { key: string; fn: HttpFunctionName; params: Record<string, string> } {
  const found = routeFor(method, rawPath);
  return found
    ? { key: routeKey(found.target), fn: found.target.function, params: found.params }
    : { key: DEFAULT_ROUTE_KEY, fn: DEFAULT_ROUTE_FUNCTION, params: {} };
}
