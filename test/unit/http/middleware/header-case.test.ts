import { httpHandler } from '../../../../shared/http/middleware';
import { call, echo, LIST_KEY, request } from '../../../support/http-chain';

test('every answer, errors included, has each header under one lower-case name with a value', async () => {
  for (const r of [
    await call(httpHandler('health', echo), request('GET', '/api/db/health')),
    await call(httpHandler('list', echo), request('POST', '/api/db/reaction/list', {}, '{', LIST_KEY)),
  ]) {
    expect(Object.keys(r.headers!).every((name) => name === name.toLowerCase())).toBe(true);
    expect(Object.values(r.headers!).every((value) => typeof value === 'string' && value !== '')).toBe(true);
  }
});
