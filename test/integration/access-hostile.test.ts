import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { useApi, type Reply } from '../support/api';
import { storedItems } from '../support/stored';

/**
 * Issue 33's hostile attempts that the row-rule suites (row-rules.test.ts, identity.test.ts) do
 * not already make, each as a caller would try it against the rules of docs/security.md: a
 * filter on another owner, `$or` and `$not` around the owner rule, a conflict on an id two
 * tenants hold, an upsert's and a transaction's create naming another's (another caller's
 * cursor is row-rules.test.ts's, and the property test's of access-model.test.ts).
 * Every answer is what a caller that holds nothing there would get, and what is stored is
 * unchanged. On code without the rules each of these reads, counts or writes another's record.
 */
const BOOKMARK = defineModel({
  name: 'hostile_bookmark',
  description: 'hostile access test: each user keeps their own bookmarks, in tenants',
  schema: z.strictObject({ org: z.string(), owner: z.string(), url: z.string(), rank: z.number().optional() }),
  indexed: ['rank'],
  owner: 'owner',
  tenant: { field: 'org', claim: 'tenant' },
});
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/catalog-with').catalogWith(['hostile_bookmark'], () => [BOOKMARK]));

const TOKENS = {
  ann: { scopes: ['read', 'write'], sub: 'ann', claims: { tenant: 'acme' } },
  bob: { scopes: ['read', 'write'], sub: 'bob', claims: { tenant: 'acme' } },
  cat: { scopes: ['read', 'write'], sub: 'cat', claims: { tenant: 'globex' } },
};
process.env.API_TOKENS = JSON.stringify(TOKENS);
const api = useApi();
const as = (who: keyof typeof TOKENS) => ({ authorization: `Bearer ${who}` });
const B = `/api/db/${BOOKMARK.name}`;

const stored = async () => (await storedItems(BOOKMARK)).map((i) => ({ id: i.id, d: i.d, _version: i._version }));
const sameRecord = (a: { id: unknown; d: unknown }, b: { id: unknown; d: unknown }) =>
  a.id === b.id && (a.d as { org: string }).org === (b.d as { org: string }).org;
const ids = (reply: Reply) => (reply.body.data.items as Array<{ id: string }>).map((r) => r.id).sort();

beforeAll(async () => {
  for (const [who, id, rank] of [
    ['ann', 'a1', 1],
    ['ann', 'a2', 2],
    ['bob', 'b1', 3],
    ['cat', 't1', 4],
  ] as const) {
    const reply = await api.post(`${B}/create`, { id, data: { url: `https://${who}.example/${id}`, rank } }, as(who));
    expect(reply.status).toBe(201);
  }
  // One id that two tenants hold: ids are per tenant.
  expect((await api.post(`${B}/create`, { id: 't1', data: { url: 'https://ann.example/t1' } }, as('ann'))).status).toBe(201);
});

/** Every read and write a caller can aim with a filter: the filter must reach only the caller's own records. */
async function expectOnly(who: keyof typeof TOKENS, filters: unknown, own: string[]): Promise<void> {
  const before = await stored();
  expect(ids(await api.post(`${B}/list`, { filters, limit: 50 }, as(who)))).toEqual(own);
  expect((await api.post(`${B}/count`, { filters }, as(who))).body.data.count).toBe(own.length);
  const first = await api.post(`${B}/get_one`, { filters }, as(who));
  expect(own.length === 0 ? first.status : first.body.data.id).toBe(own.length === 0 ? 404 : own[0]);
  // A write with the same filter changes nothing of another's: nothing at all here, as the values are what is stored.
  const update = await api.post(`${B}/update`, { filters, values: { $inc: { rank: 0 } }, max_affected: 50 }, as(who));
  expect(update.status === 409 ? update.body.data.error : update.body.data.matched).toBe(update.status === 409 ? 'matches_all' : own.length);
  const changed = (await stored()).filter((item, k) => item._version !== before[k]._version).map((i) => i.id);
  expect(changed.every((id) => own.includes(id as string))).toBe(true);
}

test('a filter on another owner: nothing of theirs is read, counted or changed', async () => {
  await expectOnly('ann', { owner: 'bob' }, []);
  await expectOnly('ann', { id: 'b1' }, []);
  await expectOnly('ann', { owner: { $in: ['ann', 'bob'] } }, ['a1', 'a2', 't1']);
  const deleted = await api.post(`${B}/delete`, { filters: { owner: 'bob' } }, as('ann'));
  expect(deleted.body.data).toMatchObject({ deleted: 0, matched: 0 });
  expect((await stored()).map((i) => i.id)).toContain('b1');
});

test('$or around the rule, and $not: no spelling reaches past it', async () => {
  await expectOnly('ann', { $or: [{ owner: 'ann' }, { owner: 'bob' }] }, ['a1', 'a2', 't1']);
  await expectOnly('ann', { $or: [{ rank: 3 }, { id: 'b1' }] }, []);
  await expectOnly('ann', { $not: { owner: 'ann' } }, []);
  await expectOnly('ann', { $or: [{ org: 'globex' }, { owner: 'cat' }] }, []);
  await expectOnly('ann', { $not: { org: 'acme' } }, []);
});

test("an id another tenant holds: a conflict names only the caller's own tenant's ids, and an upsert by it makes the caller's own", async () => {
  const before = await stored();
  // a1 is ann's in acme only; t1 is held in both tenants.
  const taken = await api.post(`${B}/create`, { data: [{ url: 'u' }, { url: 'v' }], ids: ['a1', 't1'] }, as('cat'));
  expect([taken.status, taken.body.data.error, taken.body.data.ids]).toEqual([409, 'conflict', ['t1']]);
  expect(taken.text).not.toContain('a1');
  expect(await stored()).toEqual(before);
  const upsert = await api.post(`${B}/update`, { filters: { id: 'a1' }, values: { $setOnInsert: { url: 'https://cat.example/a1' } }, upsert: true }, as('cat'));
  expect(upsert.body.data).toMatchObject({ upserted: true, matched: 0 });
  const after = await stored();
  expect(after).toEqual(expect.arrayContaining(before));
  expect(after.filter((item) => !before.some((b) => sameRecord(b, item)))).toEqual([
    { id: 'a1', d: { org: 'globex', owner: 'cat', url: 'https://cat.example/a1' }, _version: 1 },
  ]);
});

test('an upsert whose filter names another owner, and a transaction create naming another tenant, are refused: nothing is written', async () => {
  const before = await stored();
  const upsert = await api.post(`${B}/update`, { filters: { id: 'new', owner: 'bob' }, values: { $set: { url: 'u' } }, upsert: true }, as('ann'));
  expect([upsert.status, upsert.body.data.error]).toEqual([403, 'forbidden']);
  const transaction = await api.post(
    '/api/db/transaction',
    { operations: [{ op: 'create', model: BOOKMARK.name, id: 'new', data: { url: 'u', org: 'globex' } }] },
    as('ann'),
  );
  expect([transaction.status, transaction.body.data.error]).toEqual([403, 'forbidden']);
  expect(await stored()).toEqual(before);
});
