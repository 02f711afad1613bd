import { startSweeper } from '../../scripts/local/sweeper';
import type { Change } from '../../shared/feed/change';
import { checkSubscriptions } from '../../shared/feed/check-subscriptions';
import { consumeStream } from '../../shared/feed/consume';
import type { Delivery } from '../../shared/feed/queue';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { streamSoFar } from '../support/stream-records';
import { testModel } from '../support/test-catalog';

// The change feed and records that expire (issue 35), over the table's real stream on both
// engines: the local sweeper's delete of an expired record is told as an expiry, as DynamoDB's
// TTL deletes are in AWS; nothing else of an expired record is told; a create that takes an
// expired record's id is a create. The engines stamp each stream record with their own clock,
// which no test moves: these ttls are already past by the real one.
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/test-catalog').withTestModels(jest.requireActual('../../shared/models/catalog')));
jest.mock('../../shared/models/every-model', () =>
  jest.requireActual('../support/test-catalog').everyModelWithTestModels(jest.requireActual('../../shared/models/every-model')),
);
const lease = testModel('lease');
const api = useApi({ testModels: true });
beforeAll(async () => {
  await recordLayout(lease);
});
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const post = async (op: string, body: unknown) => {
  const reply = await api.post(`/api/db/lease/${op}`, body);
  expect([200, 201]).toContain(reply.status);
  return reply;
};

test('a swept record is told as an expiry; a record created expired is never told; a create over an expired id is a create', async () => {
  const past = Math.floor(Date.now() / 1000) - 60;
  const ahead = past + 100_000;
  await post('create', { ids: ['born-expired', 'live', 'plain'], data: [{ holder: 'f', until: past }, { holder: 'f', until: ahead }, { holder: 'f' }] });
  // A write that makes a record expire is not told either: its expiry is.
  await post('update', { filters: { id: 'live' }, values: { until: past } });
  await post('create', { ids: ['deleted'], data: [{ holder: 'f', until: ahead }] });
  await post('delete', { filters: { id: 'deleted' } });
  await post('create', { ids: ['reused'], data: [{ holder: 'f', until: past }] });
  await post('create', { ids: ['reused'], data: [{ holder: 'f', n: 2 }] });
  const sweeper = startSweeper([lease], { everyMs: 3_600_000 });
  await sweeper.round();
  await sweeper.stop();

  const subscriptions = await checkSubscriptions(JSON.stringify([{ name: 'all', models: ['lease'], url: 'https://h.test/all', secret: SECRET }]));
  const queued: Delivery[] = [];
  const answer = await consumeStream(await streamSoFar(), { subscriptions, queue: { send: async (deliveries) => void queued.push(...deliveries) } });
  expect(answer).toEqual({ batchItemFailures: [] });
  const told = (c: Change) => [c.op, c.id, c.version, c.expired ? 'expired' : '-'].join(' ');
  const changes = queued.map((d) => told(d.change));
  // One record's changes in commit order; records apart go on side by side (docs/feed.md).
  expect(changes.filter((c) => c.includes(' deleted '))).toEqual(['create deleted 1 -', 'delete deleted 1 -']);
  expect(changes.filter((c) => c.includes(' live '))).toEqual(['create live 1 -', 'delete live 2 expired']);
  expect(changes.sort()).toEqual(
    [
      'create deleted 1 -',
      'create live 1 -',
      'create plain 1 -',
      'create reused 1 -',
      'delete born-expired 1 expired',
      'delete deleted 1 -',
      'delete live 2 expired',
    ].sort(),
  );
  const expiry = queued.find((d) => d.change.id === 'live' && d.change.op === 'delete')!.change;
  expect(expiry.before).toMatchObject({ id: 'live', until: past, _version: 2 });
  expect(expiry.request_id).toBeUndefined();
  expect(queued.find((d) => d.change.id === 'reused')?.change.before).toBeUndefined();
});
