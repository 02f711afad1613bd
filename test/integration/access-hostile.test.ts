import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { localOnly, useApi, type Reply } from '../support/api';
import { storedItems } from '../support/stored';

/**
 * Issue 33's hostile attempts, each as a caller would try it, against the rules of
 * docs/security.md: every answer is what a caller that owns nothing there would get, and what
 * is stored is unchanged. On code without the rules each of these reads, counts or writes
 * another's record.
 */
const BOOKMARK = defineModel({
  name: 'hostile_bookmark',
  description: 'hostile access test: each user keeps their own bookmarks, in tenants',
  schema: z.strictObject({ org: z.string(), owner: z.string(), url: z.string(), rank: z.number().optional() }),
  indexed: ['rank'],
  owner: 'owner',
  tenant: { field: 'org', claim: 'tenant' },
});
jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, BOOKMARK.name],
    findModel: (name: string) => (name === BOOKMARK.name ? BOOKMARK : actual.findModel(name)),
  };
});

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

test("another caller's cursor shows nothing of the records it was made for", async () => {
  const first = await api.post(`${B}/list`, { limit: 1 }, as('ann'));
  const cursor = first.body.data.next_cursor;
  expect(cursor).toEqual(expect.any(String));
  for (const other of ['bob', 'cat'] as const) {
    const reply = await api.post(`${B}/list`, { limit: 10, cursor }, as(other));
    expect(reply.status).toBe(400);
    expect(reply.body.data.error).toBe('invalid_cursor');
    expect(reply.text).not.toContain('ann.example');
  }
  // The caller it was made for goes on.
  expect(ids(await api.post(`${B}/list`, { limit: 10, cursor }, as('ann')))).toEqual(['a2', 't1']);
});

test('an id that another tenant holds: not found, not changed, not named, and free to take', async () => {
  const before = await stored();
  expect((await api.post(`${B}/get_one`, { filters: { id: 't1' } }, as('bob'))).status).toBe(404);
  const cats = await api.post(`${B}/get_one`, { filters: { id: 't1' } }, as('cat'));
  expect(cats.body.data).toMatchObject({ id: 't1', org: 'globex', owner: 'cat', url: 'https://cat.example/t1' });
  expect((await api.post(`${B}/update`, { filters: { id: 'a1' }, values: { url: 'x' } }, as('cat'))).body.data).toMatchObject({ matched: 0, updated: 0 });
  expect((await api.post(`${B}/delete`, { filters: { id: 'a1' } }, as('cat'))).body.data).toMatchObject({ matched: 0, deleted: 0 });
  const transaction = await api.post(
    '/api/db/transaction',
    { operations: [{ op: 'update', model: BOOKMARK.name, id: 'a1', values: { url: 'x' } }] },
    as('cat'),
  );
  expect(transaction.status).toBe(409);
  expect(transaction.body.data).toMatchObject({ error: 'conflict', reason: 'missing' });
  // An upsert by the id makes cat's own a1, beside ann's.
  const upsert = await api.post(`${B}/update`, { filters: { id: 'a1' }, values: { $setOnInsert: { url: 'https://cat.example/a1' } }, upsert: true }, as('cat'));
  expect(upsert.body.data).toMatchObject({ upserted: true });
  const after = await stored();
  expect(after.filter((i) => before.every((b) => b.id !== i.id || (b.d as { org: string }).org !== (i.d as { org: string }).org))).toEqual([
    { id: 'a1', d: { org: 'globex', owner: 'cat', url: 'https://cat.example/a1' }, _version: 1 },
  ]);
  expect(after).toEqual(expect.arrayContaining(before));
  // A create of an id the caller's own tenant holds is a conflict naming only that id.
  const taken = await api.post(`${B}/create`, { data: [{ url: 'u' }, { url: 'v' }], ids: ['new1', 't1'] }, as('cat'));
  expect(taken.status).toBe(409);
  expect(taken.body.data.ids).toEqual(['t1']);
});

test('a create that names another owner or another tenant is refused, and nothing is written', async () => {
  const before = await stored();
  for (const data of [{ url: 'u', owner: 'bob' }, { url: 'u', org: 'globex' }, [{ url: 'u' }, { url: 'v', owner: 'bob' }]]) {
    const reply = await api.post(`${B}/create`, Array.isArray(data) ? { data } : { data }, as('ann'));
    expect([reply.status, reply.body.data.error]).toEqual([403, 'forbidden']);
  }
  const upsert = await api.post(`${B}/update`, { filters: { id: 'new', owner: 'bob' }, values: { $set: { url: 'u' } }, upsert: true }, as('ann'));
  expect([upsert.status, upsert.body.data.error]).toEqual([403, 'forbidden']);
  const transaction = await api.post(
    '/api/db/transaction',
    { operations: [{ op: 'create', model: BOOKMARK.name, id: 'new', data: { url: 'u', org: 'globex' } }] },
    as('ann'),
  );
  expect([transaction.status, transaction.body.data.error]).toEqual([403, 'forbidden']);
  const moved = await api.post(`${B}/update`, { filters: { id: 'a1' }, values: { owner: 'bob' } }, as('ann'));
  expect([moved.status, moved.body.data.error]).toEqual([403, 'forbidden']);
  expect(await stored()).toEqual(before);
});

localOnly('a JWT claim forged through the local server is no claim: no header or token makes a caller of another tenant', async () => {
  const forged = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
  const attempts: Array<Record<string, string>> = [
    { authorization: `Bearer ${forged({ sub: 'cat', tenant: 'globex', scope: 'read write admin' })}` },
    {
      ...as('ann'),
      'x-amzn-oidc-data': forged({ sub: 'cat', tenant: 'globex' }),
      'x-apigateway-event': JSON.stringify({ requestContext: { authorizer: { jwt: { claims: { tenant: 'globex' } } } } }),
    },
  ];
  for (const headers of attempts) {
    const reply = await api.post(`${B}/list`, { limit: 50 }, headers);
    if (reply.status === 200) expect(reply.body.data.items.every((r: { org: string; owner: string }) => r.org === 'acme' && r.owner === 'ann')).toBe(true);
    else expect(reply.status).toBe(401);
    expect(reply.text).not.toContain('cat.example');
  }
});
