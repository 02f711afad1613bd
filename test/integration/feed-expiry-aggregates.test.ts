import { startSweeper } from '../../scripts/local/sweeper';
import { checkSubscriptions } from '../../shared/feed/check-subscriptions';
import { consumeStream } from '../../shared/feed/consume';
import type { Delivery } from '../../shared/feed/queue';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { useClock } from '../support/clock';
import { streamSoFar } from '../support/stream-records';
import { testModel } from '../support/test-catalog';

// Aggregates of records that expire, through the API and the table's real stream on both engines
// (docs/record-api.md "Aggregates: how exact"): the change feed's consumer hands a write that
// leaves a record expired to the aggregates though no subscriber is told it; the local sweeper's
// round takes a record out of its groups once its ttl passes (the clock moved, test/support/clock.ts),
// and `count` of a group, which reads the records of a ttl model, agrees; the stream handed over again,
// with the sweeper's deletes, subtracts nothing twice.
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/test-catalog').withTestModels(jest.requireActual('../../shared/models/catalog')));
jest.mock('../../shared/models/every-model', () =>
  jest.requireActual('../support/test-catalog').everyModelWithTestModels(jest.requireActual('../../shared/models/every-model')),
);
const model = testModel('lease_tally');
const api = useApi({ testModels: true });
const clock = useClock();
beforeAll(async () => {
  await recordLayout(model);
});
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const post = async (op: string, body: unknown) => {
  const reply = await api.post(`/api/db/lease_tally/${op}`, body);
  expect([200, 201]).toContain(reply.status);
  return reply.body.data;
};
const groups = async () => {
  const { groups } = await post('aggregate', { name: 'by_holder' });
  return Object.fromEntries(
    (groups as Array<{ key: { holder: string }; count: number; sum: { n: string } }>).map((g) => [g.key.holder, [g.count, Number(g.sum.n)]]),
  );
};

test('an update that makes a record expire leaves its groups untold; the sweeper round drops expired records from the counters before their delete, which then subtracts nothing', async () => {
  const now = Math.floor(Date.now() / 1000);
  const HOUR = 3_600;
  await post('create', {
    ids: ['a1', 'a2', 'a3', 'b1'],
    data: [
      { holder: 'a', until: now + HOUR, n: 1 },
      { holder: 'a', until: now + 10 * HOUR, n: 2 },
      { holder: 'a', until: now + 10 * HOUR, n: 4 },
      { holder: 'b', n: 8 },
    ],
  });
  // Made to expire by a request: no subscriber is told, the aggregates must drop it.
  await post('update', { filters: { id: 'a3' }, values: { until: now - 60 } });
  const subscriptions = await checkSubscriptions(JSON.stringify([{ name: 'all', models: ['lease_tally'], url: 'https://h.test/all', secret: SECRET }]));
  const queued: Delivery[] = [];
  const queue = { send: async (deliveries: ReadonlyArray<Delivery>) => void queued.push(...deliveries) };
  expect(await consumeStream(await streamSoFar(), { subscriptions, queue })).toEqual({ batchItemFailures: [] });
  expect(queued.map((d) => `${d.change.op} ${d.change.id}`).sort()).toEqual(['create a1', 'create a2', 'create a3', 'create b1']);
  expect(await groups()).toEqual({ a: [2, 3], b: [1, 8] });
  expect(await post('count', { filters: { holder: 'a' } })).toMatchObject({ count: 2 });

  // An hour later a1 has expired: the sweeper's round takes it out of its groups at once.
  clock.advance((HOUR + 60) * 1000);
  const sweeper = startSweeper([model], { everyMs: 3_600_000 });
  await sweeper.round();
  await sweeper.stop();
  expect(await groups()).toEqual({ a: [1, 2], b: [1, 8] });
  const counted = await post('count', { filters: { holder: 'a' } });
  expect(counted).toMatchObject({ count: 1 });
  // A ttl model's count reads its records, whose reads leave expired ones out: no counter answers it.
  expect(counted).not.toHaveProperty('aggregate');
  expect(await post('count', {})).toMatchObject({ count: 2 });

  // The whole stream handed over again, the sweeper's deletes of a1 and a3 with it: nothing counts twice.
  expect(await consumeStream(await streamSoFar(), { subscriptions: [], queue })).toEqual({ batchItemFailures: [] });
  expect(await groups()).toEqual({ a: [1, 2], b: [1, 8] });
  expect((await post('list', {})).items.map((r: { id: string }) => r.id).sort()).toEqual(['a2', 'b1']);
});
