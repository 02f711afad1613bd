import { DEFAULT_ROUTE_FUNCTION, KEYED_ROUTES, routeKey, routeKeysOf } from '../../../shared/manifest/routes';

describe('the deployed route table', () => {
  test('no route key ends in "/" but the root', () => {
    for (const route of KEYED_ROUTES) expect(route.path === '/' || !route.path.endsWith('/')).toBe(true);
  });

  test('the function of $default is deployed behind it', () => {
    expect(routeKeysOf(DEFAULT_ROUTE_FUNCTION)).toContain('$default');
  });

  test('every other function answers only its own keys, never $default', () => {
    for (const route of KEYED_ROUTES.filter((r) => r.function !== DEFAULT_ROUTE_FUNCTION)) {
      expect(routeKeysOf(route.function)).toContain(routeKey(route));
      expect(routeKeysOf(route.function)).not.toContain('$default');
    }
  });
});
