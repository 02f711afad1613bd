import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterFailure, answered, attemptDelivery, NO_ANSWER, type WebhookSubscription } from '../../../shared/feed/deliver';
import { RETRY_SCHEDULE_SECONDS } from '../../../shared/feed/schedule';

const change = { change_id: 'c1', model: 'order', id: 'o1', op: 'create' as const, version: 1, time: '2026-11-27T08:00:00.000Z', after: { id: 'o1' } };

let server: Server;
let answer: (path: string) => { status: number; headers?: Record<string, string> };
const hits: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url!);
    const { status, headers } = answer(req.url!);
    res.writeHead(status, headers).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const subscription = (path: string): WebhookSubscription => ({
  name: 's',
  models: ['order'],
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
  secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
});

test('after each failed attempt the next is the schedule’s, and after the last the delivery is dead', () => {
  expect(RETRY_SCHEDULE_SECONDS.slice(1).map((_, i) => afterFailure(i + 1, 'x'))).toEqual(
    RETRY_SCHEDULE_SECONDS.slice(1).map((afterSeconds) => ({ kind: 'retry', afterSeconds, failure: 'x' })),
  );
  expect(afterFailure(RETRY_SCHEDULE_SECONDS.length, 'x')).toEqual({ kind: 'dead', failure: 'x' });
});

test('any 2xx is delivered; a redirect is a failure and is not followed', async () => {
  answer = (path) => (path === '/moved' ? { status: 308, headers: { location: '/elsewhere' } } : { status: 299 });
  expect(await attemptDelivery({ subscription: 's', change }, subscription('/hook'), { attempt: 1 })).toEqual({ kind: 'delivered', status: 299 });
  hits.length = 0;
  expect(await attemptDelivery({ subscription: 's', change }, subscription('/moved'), { attempt: 2 })).toEqual({
    kind: 'retry',
    afterSeconds: RETRY_SCHEDULE_SECONDS[2],
    failure: 'status 308',
  });
  expect(hits).toEqual(['/moved']);
});

test('no connection is a failure named by its code', async () => {
  const nobody = createServer();
  await new Promise<void>((resolve) => nobody.listen(0, '127.0.0.1', resolve));
  const closed = { ...subscription('/'), url: `http://127.0.0.1:${(nobody.address() as AddressInfo).port}/` };
  await new Promise((resolve) => nobody.close(resolve));
  expect(await attemptDelivery({ subscription: 's', change }, closed, { attempt: 8 })).toEqual({ kind: 'dead', failure: 'ECONNREFUSED' });
});

test('what the breaker hears of an attempt: any status is an answer, the timeout is silence, no connection is neither', async () => {
  answer = (path) => ({ status: path === '/down' ? 503 : 204 });
  const attempt = (path: string) => attemptDelivery({ subscription: 's', change }, subscription(path), { attempt: 1 });
  expect(answered(await attempt('/hook'))).toBe(true);
  expect(answered(await attempt('/down'))).toBe(true);
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const hung = await attemptDelivery(
    { subscription: 's', change },
    { ...subscription('/'), url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/` },
    { attempt: 1, timeoutMs: 100 },
  );
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  expect(hung).toMatchObject({ failure: NO_ANSWER });
  expect(answered(hung)).toBe(false);
  expect(answered({ kind: 'retry', afterSeconds: 5, failure: 'ECONNREFUSED' })).toBeUndefined();
});
