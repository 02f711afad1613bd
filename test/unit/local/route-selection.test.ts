import { DEFAULT_ROUTE_FUNCTION } from '../../../shared/manifest/routes';
import { dispatch, selectRoute } from '../../../scripts/local/route-selection';

const keys = (...list: string[]) => list.map((key) => ({ key, target: key }));

describe('selectRoute, as API Gateway selects HTTP API routes', () => {
  const routes = keys('GET /api/db/models', 'POST /api/db/{model_name}/create', 'POST /', 'GET /docs/{asset}');

  test.each([
    ['GET', '/api/db/models', 'GET /api/db/models', {}],
    ['POST', '/api/db/reaction/create', 'POST /api/db/{model_name}/create', { model_name: 'reaction' }],
    ['POST', '/api/db/re%61ction/create', 'POST /api/db/{model_name}/create', { model_name: 'reaction' }],
    ['POST', '/', 'POST /', {}],
    ['GET', '/docs/swagger-ui.css', 'GET /docs/{asset}', { asset: 'swagger-ui.css' }],
  ])('%s %s matches %s', (method, path, key, params) => {
    expect(selectRoute(routes, method, path)).toEqual({ target: key, params });
  });

  test.each([
    ['GET', '/api/db/models/'],
    ['GET', '/api/db//models'],
    ['GET', '/API/DB/MODELS'],
    ['POST', '/api/db/models'],
    ['POST', '/api/db//create'],
    ['POST', '/api/db/a/b/create'],
    ['GET', '/'],
    ['GET', '/docs/'],
  ])('%s %s matches no route key: $default', (method, path) => {
    expect(selectRoute(routes, method, path)).toBeUndefined();
  });

  test('a literal segment wins over a variable one, whatever the order of the keys', () => {
    const both = keys('GET /a/{x}', 'GET /a/b');
    expect(selectRoute(both, 'GET', '/a/b')?.target).toBe('GET /a/b');
    expect(selectRoute([...both].reverse(), 'GET', '/a/b')?.target).toBe('GET /a/b');
    expect(selectRoute(both, 'GET', '/a/c')).toEqual({ target: 'GET /a/{x}', params: { x: 'c' } });
  });

  test('broken percent-encoding stays as sent', () => {
    expect(selectRoute(routes, 'POST', '/api/db/%E0%A4%A/create')?.params).toEqual({ model_name: '%E0%A4%A' });
  });
});

test('the receiver paths ending in "/" reach $default, whose function serves them', () => {
  expect(dispatch('POST', '/onebot/v11/')).toEqual({ key: '$default', fn: DEFAULT_ROUTE_FUNCTION, params: {} });
  expect(dispatch('POST', '/onebot/v11/http')).toEqual({ key: 'POST /onebot/v11/http', fn: 'onebot', params: {} });
});
