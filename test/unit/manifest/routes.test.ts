import { FUNCTION_DESCRIPTORS } from '../../../shared/manifest/functions';
import { DEFAULT_ROUTE_FUNCTION, DEFAULT_ROUTE_KEY, KEYED_ROUTES, pathPattern, routeKey, routeKeysOf, routeOfKey } from '../../../shared/manifest/routes';

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

describe('route scopes: what the function behind each route key asks of its caller', () => {
  const scopeOfKey = (key: string) => (key === DEFAULT_ROUTE_KEY ? FUNCTION_DESCRIPTORS[DEFAULT_ROUTE_FUNCTION].scope : routeOfKey(key)?.scope);
  test.each([
    ['GET /api/db/health', 'public'],
    ['GET /api/db/models', 'read'],
    ['POST /api/db/{model_name}/get_one', 'read'],
    ['POST /api/db/{model_name}/list', 'read'],
    ['POST /api/db/{model_name}/count', 'read'],
    ['POST /api/db/{model_name}/create', 'write'],
    ['POST /api/db/{model_name}/update', 'write'],
    ['POST /api/db/{model_name}/delete', 'write'],
    ['GET /api/feed', 'admin'],
    ['POST /api/feed/{subscription}/replay', 'admin'],
    ['$default', 'public'],
  ])('%s needs %s', (key, scope) => {
    expect(scopeOfKey(key)).toBe(scope);
  });
});

test('a replay names its subscription by one whole path segment', () => {
  const replay = pathPattern(routeOfKey('POST /api/feed/{subscription}/replay')!.path);
  expect(replay.exec('/api/feed/hearts/replay')?.groups).toEqual({ subscription: 'hearts' });
  for (const path of ['/api/feed//replay', '/api/feed/a/b/replay', '/api/feed/hearts']) expect(replay.test(path)).toBe(false);
  expect(routeKeysOf('feed_replay')).toEqual(['POST /api/feed/{subscription}/replay']);
  expect(routeKeysOf('feed_status')).toEqual(['GET /api/feed']);
});
