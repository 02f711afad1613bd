import type { ApiRequest } from '../../../shared/contract';
import { ApiError } from '../../../shared/errors';
import { feedReplayOperation } from '../../../shared/api/feed-replay';
import { feedStatusOperation } from '../../../shared/api/feed-status';

// A SUBSCRIPTIONS text the check refuses reaches the admin routes only as a secret put by hand
// (npm start refuses to start with one): both answer 500 misconfigured, naming where each
// problem is and never the secret it holds, before touching the table.
const secret = `whsec_${Buffer.alloc(8, 1).toString('base64')}`;
beforeAll(() => {
  process.env.SUBSCRIPTIONS = JSON.stringify([{ name: 'hearts', models: ['reaction'], url: 'http://127.0.0.1:9/h', secret }]);
});
afterAll(() => {
  delete process.env.SUBSCRIPTIONS;
});

test.each([
  ['GET /api/feed', () => feedStatusOperation({} as ApiRequest)],
  [
    'POST /api/feed/{subscription}/replay',
    () => feedReplayOperation({ params: { subscription: 'hearts' }, body: { dead_letters: true } } as unknown as ApiRequest),
  ],
])('%s answers misconfigured, naming the place and not the secret', async (_, call) => {
  const refused = await call().catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect(refused).toMatchObject({ code: 'misconfigured', status: 500, message: expect.stringContaining('SUBSCRIPTIONS[0].secret') });
  expect((refused as Error).message).not.toContain(secret);
});
