import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { useClock } from '../support/clock';
import { useSteerableProxy } from '../support/steerable-proxy';
import { engineClient, tableSnapshot } from '../support/table-snapshot';
import { testModel } from '../support/test-catalog';

// A create that takes an expired record's id (issue 35) while the network holds its write past
// the answer timeout: the store settles it by reading the record, and an expired record read
// there is one the create may still replace, not another writer's. So the answer is the create's
// (201), or 503 outcome_unknown, never 409 for a write that then lands.
const proxy = useSteerableProxy();
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/test-catalog').withTestModels(jest.requireActual('../../shared/models/catalog')));
jest.mock('../../shared/models/every-model', () =>
  jest.requireActual('../support/test-catalog').everyModelWithTestModels(jest.requireActual('../../shared/models/every-model')),
);
const lease = testModel('lease');
const api = useApi({ testModels: true });
const clock = useClock();
beforeAll(async () => {
  await recordLayout(lease);
});

const leaseItem = async (id: string) =>
  (await tableSnapshot(engineClient(proxy.target))).find((i) => String(i.pk).startsWith('lease#') && i.id === id) as Record<string, any> | undefined;

test('a create over an expired id whose write is held past the answer timeout answers 201 or outcome_unknown, never a conflict', async () => {
  expect((await api.post('/api/db/lease/create', { id: 'held', data: { holder: 'old', until: Math.floor(Date.now() / 1000) + 5 } })).status).toBe(201);
  clock.advance(60_000);
  await proxy.set({ slowWritesMs: 4_000 });
  const reply = await api.post('/api/db/lease/create', { id: 'held', data: { holder: 'new', n: 7 } });
  await proxy.set('pass');
  await proxy.drained();
  expect([201, 503]).toContain(reply.status);
  if (reply.status === 503) expect(reply.body.data.error).toBe('outcome_unknown');
  const stored = await leaseItem('held');
  // The held write landed: the record is the new one, and one a read answers.
  expect(stored?.d).toEqual({ holder: 'new', n: 7 });
  expect((await api.post('/api/db/lease/get_one', { filters: { id: 'held' } })).body.data).toMatchObject({ holder: 'new', n: 7 });
});
