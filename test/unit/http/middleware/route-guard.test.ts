import { httpHandler } from '../../../../shared/http/middleware';
import { KEYED_ROUTES, routeKey } from '../../../../shared/manifest/routes';
import { call, echo, request } from '../../../support/http-chain';

// Fail closed: a function answers the route keys it is deployed behind and nothing else.
test("a function given another function's route key, or $default, is 404 route_not_found and its operation never runs", async () => {
  const operation = jest.fn(echo);
  const health = httpHandler('health', operation);
  for (const key of ['$default', routeKey(KEYED_ROUTES.find((r) => r.function === 'models')!)]) {
    const r = await call(health, request('GET', '/api/db/health', {}, '', key));
    expect(r.statusCode).toBe(404);
    expect(JSON.parse(r.body!).data.error).toBe('route_not_found');
  }
  expect(operation).not.toHaveBeenCalled();
  expect((await call(health, request('GET', '/api/db/health'))).statusCode).toBe(200);
});
