import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi, type Reply } from '../support/api';
import { useSteerableProxy } from '../support/steerable-proxy';
import { engineClient, tableSnapshot } from '../support/table-snapshot';
import { touching } from '../support/write-rules';

// docs/security.md, "Row rules in the store": every key and condition an operation makes lies
// within its caller's reach, down to the checks of a write whose answer was lost. Here the
// answers of one write by id are lost (the proxy first: the harness takes its endpoint).
const proxy = useSteerableProxy();
const MEMO = defineModel({
  name: 'rf_memo',
  description: 'row rules under faults: memos kept per user, per tenant',
  schema: z.strictObject({ org: z.string(), owner: z.string(), text: z.string() }),
  owner: 'owner',
  tenant: { field: 'org', claim: 'tenant' },
});
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/catalog-with').catalogWith(['rf_memo'], () => [MEMO]));

process.env.API_TOKENS = JSON.stringify({
  ann: { scopes: ['read', 'write'], sub: 'ann', claims: { tenant: 'acme' } },
  bob: { scopes: ['read', 'write'], sub: 'bob', claims: { tenant: 'acme' } },
});
const api = useApi();
const post = (who: 'ann' | 'bob', op: string, body: unknown) => api.post(`/api/db/${MEMO.name}/${op}`, body, { authorization: `Bearer ${who}` });
/** The memos as the engine holds them, past the proxy, by id. */
const stored = async () =>
  new Map(
    (await tableSnapshot(engineClient(proxy.target)))
      .filter((i) => String(i.pk).startsWith(`${MEMO.name}#`))
      .map((i) => [String(i.id), i as Record<string, any>]),
  );
/** The write of acme's record `id` (its sort key is the tenant's key space, then the id). */
const acme = (id: string) => touching([`acme\u0000${id}`], MEMO.name);
/** An update by id of `id` by ann, the answers of its writes lost. */
async function lostUpdate(id: string): Promise<Reply> {
  await proxy.set({ loseAnswers: acme(id) });
  const reply = await post('ann', 'update', { filters: { id }, values: { $set: { text: 'changed' } } });
  await proxy.set('pass');
  await proxy.drained();
  return reply;
}
/** What an answer says, less the id it names. */
const said = (r: Reply, id: string) => [r.status, JSON.parse(JSON.stringify(r.body.data).replaceAll(id, '<id>'))];

beforeAll(async () => {
  // As a deploy does: an update by id is one write once the layout records the schema.
  await recordLayout(MEMO);
  expect((await post('ann', 'create', { id: 'mine', data: { text: 'ann' } })).status).toBe(201);
  expect((await post('bob', 'create', { id: 'his', data: { text: 'bob' } })).status).toBe(201);
});

test("the owner's update by id whose answer was lost is 200 once its record shows the write, applied once", async () => {
  const lost = proxy.counts().lost;
  const r = await lostUpdate('mine');
  expect(proxy.counts().lost).toBeGreaterThan(lost);
  expect([r.status, r.body.data.updated]).toEqual([200, 1]);
  const item = (await stored()).get('mine');
  expect([item?.d.text, item?._version]).toEqual(['changed', 2]);
});

test("an update by id of another owner's record, its answer lost, is answered as one of a missing record, and changes nothing", async () => {
  const before = (await stored()).get('his');
  const missing = await lostUpdate('never-made');
  const his = await lostUpdate('his');
  expect(said(his, 'his')).toEqual(said(missing, 'never-made'));
  expect((await stored()).get('his')).toEqual(before);
  expect((await stored()).has('never-made')).toBe(false);
});
