import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { LayoutMismatch } from '../../shared/store/errors';
import { auditModel } from '../../shared/store/layout/audit';
import { resolveLayout } from '../../shared/store/layout/layout';
import { buildIndexes, recordLayout } from '../../shared/store/layout/index-build';
import { listRecords } from '../../shared/store/actions/list/list';
import { createRecords } from '../../shared/store/actions/create/create';
import { againstArtifacts, useApi, type Reply } from '../support/api';
import { commandsSent } from '../support/commands-sent';
import { storedItems } from '../support/stored';

/**
 * The row rules as the store keeps them (docs/security.md, "Row rules in the store"): a tenant's
 * records under keys of its own, read without reading another tenant's; an owner held by the
 * condition every read and write already sends, at no extra read; creates stamped; counts and
 * guards that count only the caller's records; a tenant rule that stored records cannot follow
 * refused; records without an owner reported.
 */
const NOTE = defineModel({
  name: 'rr_note',
  description: 'row rules test: notes kept per user, per tenant',
  schema: z.strictObject({ org: z.string(), owner: z.string().optional(), title: z.string(), rank: z.number().optional() }),
  indexed: ['rank'],
  owner: 'owner',
  tenant: { field: 'org', claim: 'tenant' },
});
const fields = { title: z.string() };
const PLAIN = defineModel({ name: 'rr_evolving', description: 'a model that gains a tenant rule', schema: z.strictObject({ ...fields, org: z.string() }) });
const TENANTED = defineModel({
  name: 'rr_evolving',
  description: 'the same model with a tenant rule',
  schema: z.strictObject({ ...fields, org: z.string() }),
  tenant: { field: 'org', claim: 'tenant' },
});
jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, NOTE.name],
    findModel: (name: string) => (name === NOTE.name ? NOTE : actual.findModel(name)),
  };
});

const TOKENS = {
  ann: { scopes: ['read', 'write'], sub: 'ann', claims: { tenant: 'acme' } },
  bob: { scopes: ['read', 'write'], sub: 'bob', claims: { tenant: 'acme' } },
  cat: { scopes: ['read', 'write'], sub: 'cat', claims: { tenant: 'globex' } },
  root: { scopes: ['read', 'write', 'admin'], sub: 'root', claims: { tenant: 'acme' } },
  nobody: { scopes: ['read', 'write', 'admin'], sub: 'nobody' },
  long: { scopes: ['read', 'write'], sub: 'long', claims: { tenant: 'é'.repeat(32) } },
  longer: { scopes: ['read', 'write'], sub: 'longer', claims: { tenant: `${'é'.repeat(32)}x` } },
};
process.env.API_TOKENS = JSON.stringify(TOKENS);
const api = useApi();
type Who = keyof typeof TOKENS;
const post = (who: Who, route: string, body: unknown) =>
  api.post(`/api/db/${route === 'transaction' ? route : `${NOTE.name}/${route}`}`, body, { authorization: `Bearer ${who}` });
const ids = (reply: Reply) => (reply.body.data.items as Array<{ id: string }>).map((r) => r.id).sort();
const stored = async () => Object.fromEntries((await storedItems(NOTE)).map((item) => [`${item.sk}`, item]));

beforeAll(async () => {
  // As a deploy does: an update by id writes in place once the layout records the model's schema.
  await recordLayout(NOTE);
  for (const [who, id] of [
    ['ann', 'a1'],
    ['ann', 'a2'],
    ['bob', 'b1'],
    ['cat', 'c1'],
    ['cat', 'c2'],
    ['cat', 'c3'],
    ['cat', 'c4'],
  ] as const) {
    expect((await post(who, 'create', { id, data: { title: `${who} ${id}`, rank: 1 } })).status).toBe(201);
  }
});

test("a create is stamped with its caller's subject and tenant, and the tenant is in the record's key", async () => {
  const items = await stored();
  expect(items['acme\u0000a1'].d).toEqual({ org: 'acme', owner: 'ann', title: 'ann a1', rank: 1 });
  expect(items['globex\u0000c1'].d).toEqual({ org: 'globex', owner: 'cat', title: 'cat c1', rank: 1 });
  // Admin may make a record for another owner, never in another tenant.
  expect((await post('root', 'create', { id: 'r1', data: { title: 'for bob', owner: 'bob' } })).body.data).toMatchObject({ owner: 'bob', org: 'acme' });
  const elsewhere = await post('root', 'create', { data: { title: 'x', org: 'globex' } });
  expect([elsewhere.status, elsewhere.body.data.error, elsewhere.body.data.path]).toEqual([403, 'forbidden', 'data.org']);
  const another = await post('ann', 'create', { data: [{ title: 'x' }, { title: 'y', owner: 'bob' }] });
  expect([another.status, another.body.data.path]).toEqual([403, 'data.1.owner']);
  expect((await post('bob', 'delete', { filters: { id: 'r1' } })).body.data).toMatchObject({ deleted: 1 });
});

test("a tenant's list and count read its own records only: the other tenants' are not in its keys", async () => {
  const annList = await post('ann', 'list', {});
  expect(ids(annList)).toEqual(['a1', 'a2']);
  // Two of acme's records read (ann's and bob's), none of globex's four.
  expect(annList.body.data.scanned).toBe(3);
  expect((await post('ann', 'count', {})).body.data).toEqual({ count: 2, scanned: 3 });
  // Through the index on rank too, and whatever the filter says of the tenant field.
  expect((await post('cat', 'list', { order_by: '-rank' })).body.data).toMatchObject({ scanned: 4 });
  expect(ids(await post('cat', 'list', { filters: { $or: [{ org: 'acme' }, { rank: 1 }] } }))).toEqual(['c1', 'c2', 'c3', 'c4']);
  expect(ids(await post('cat', 'list', { filters: { org: 'acme' } }))).toEqual([]);
});

test('ids are per tenant: two tenants each hold one id, and each sees and changes only its own', async () => {
  expect((await post('ann', 'create', { id: 'same', data: { title: 'acme one' } })).status).toBe(201);
  expect((await post('cat', 'create', { id: 'same', data: { title: 'globex one' } })).status).toBe(201);
  expect((await post('root', 'get_one', { filters: { id: 'same' } })).body.data).toMatchObject({ title: 'acme one', org: 'acme' });
  expect((await post('cat', 'update', { filters: { id: 'same' }, values: { title: 'changed' } })).body.data).toMatchObject({ updated: 1 });
  expect((await post('ann', 'get_one', { filters: { id: 'same' } })).body.data.title).toBe('acme one');
  expect((await post('cat', 'delete', { filters: { id: 'same' } })).body.data).toMatchObject({ deleted: 1 });
  expect((await post('ann', 'get_one', { filters: { id: 'same' } })).status).toBe(200);
  expect((await post('ann', 'delete', { filters: { id: 'same' } })).body.data).toMatchObject({ deleted: 1 });
});

test("the owner rule adds no read: an update by id is one UpdateItem, and another's record costs what a missing one does", async () => {
  await post('ann', 'get_one', { filters: { id: 'a1' } }); // the layout read, once per container
  const own = await commandsSent(async () => {
    expect((await post('ann', 'update', { filters: { id: 'a1' }, values: { $set: { title: 'changed' } } })).body.data).toMatchObject({ updated: 1 });
  });
  const before = await stored();
  const others = await commandsSent(async () => {
    expect((await post('ann', 'update', { filters: { id: 'b1' }, values: { $set: { title: 'changed' } } })).body.data).toMatchObject({
      matched: 0,
      updated: 0,
    });
  });
  const missing = await commandsSent(async () => {
    expect((await post('ann', 'update', { filters: { id: 'zz' }, values: { $set: { title: 'changed' } } })).body.data).toMatchObject({ matched: 0 });
  });
  expect(await stored()).toEqual(before);
  if (againstArtifacts()) return;
  expect(own).toEqual({ UpdateItemCommand: 1 });
  expect(others).toEqual(missing);
  // A delete by id reads once and deletes conditionally on the owner, as it did before the rule.
  const deleted = await commandsSent(async () => {
    expect((await post('bob', 'delete', { filters: { id: 'a2' } })).body.data).toMatchObject({ matched: 0, deleted: 0 });
  });
  expect(deleted).toEqual({ QueryCommand: 1 });
});

test("matches_all and too_many_matches count the caller's records only", async () => {
  // ann's filter matches both of her records, though bob's and cat's records match it too.
  const all = await post('ann', 'delete', { filters: { title: { $exists: true } } });
  expect([all.status, all.body.data.error, all.body.data.matched]).toEqual([409, 'matches_all', 2]);
  const many = await post('cat', 'update', { filters: { rank: { $gte: 0 } }, values: { title: 'x' }, max_affected: 3 });
  expect([many.status, many.body.data.error, many.body.data.matched_at_least]).toEqual([409, 'too_many_matches', 4]);
  expect((await post('bob', 'update', { filters: { title: { $exists: true } }, values: { rank: 7 } })).body.data).toMatchObject({ updated: 1 });
});

test('no one moves a record out of reach: a caller keeps its records, and nobody changes a tenant', async () => {
  const before = await stored();
  const give = await post('ann', 'update', { filters: { id: 'a1' }, values: { owner: 'bob' } });
  expect([give.status, give.body.data.path]).toEqual([403, 'values.owner']);
  const move = await post('root', 'update', { filters: { id: 'a1' }, values: { $set: { org: 'globex' } } });
  expect([move.status, move.body.data.path]).toEqual([403, 'values.org']);
  const inTransaction = await post('ann', 'transaction', { operations: [{ op: 'update', model: NOTE.name, id: 'a1', values: { owner: 'bob' } }] });
  expect([inTransaction.status, inTransaction.body.data.path]).toEqual([403, 'operations.0.values.owner']);
  expect(await stored()).toEqual(before);
  // Naming what the record holds changes nothing and is no move; admin may give a record away.
  expect((await post('ann', 'update', { filters: { id: 'a1' }, values: { owner: 'ann', org: 'acme' } })).status).toBe(200);
  expect((await post('root', 'update', { filters: { id: 'a2' }, values: { owner: 'bob' } })).body.data).toMatchObject({ updated: 1 });
  expect(ids(await post('bob', 'list', {}))).toEqual(['a2', 'b1']);
  expect((await post('root', 'update', { filters: { id: 'a2' }, values: { owner: 'ann' } })).body.data).toMatchObject({ updated: 1 });
});

test("a transaction's check or delete of another owner's record is refused as one of a missing record", async () => {
  for (const op of ['check', 'delete']) {
    const on = (id: string) => post('ann', 'transaction', { operations: [{ op, model: NOTE.name, id, filters: { title: { $exists: true } } }] });
    const others = await on('b1');
    const missing = await on('nope');
    expect([others.status, others.body.data.reason]).toEqual([409, 'missing']);
    const told = (reply: Reply) => JSON.stringify(reply.body).replaceAll('nope', 'b1');
    expect(told(others)).toBe(told(missing));
  }
  expect(ids(await post('bob', 'list', {}))).toContain('b1');
  // The caller's own record that fails its filters is told apart, as before the rule.
  const own = await post('ann', 'transaction', { operations: [{ op: 'check', model: NOTE.name, id: 'a1', filters: { title: 'not this' } }] });
  expect([own.status, own.body.data.reason]).toEqual([409, 'condition_failed']);
});

test('a credential without the tenant claim reaches nothing of a tenant model, admin included', async () => {
  for (const route of ['list', 'count', 'create', 'update', 'delete', 'get_one']) {
    const reply = await post('nobody', route, { filters: {}, data: { title: 't' }, values: { title: 't' } });
    expect([route, reply.status, reply.body.data.error]).toEqual([route, 403, 'forbidden']);
  }
});

test('records without an owner are reached by admin alone, and models:check counts them', async () => {
  // The service's own create passes no reach: nothing stamps an owner.
  await createRecords(NOTE, { records: [{ id: 'svc', data: { org: 'acme', title: 'by the service' } }] });
  expect(ids(await post('ann', 'list', { filters: { id: 'svc' } }))).toEqual([]);
  expect(ids(await post('root', 'list', { filters: { id: 'svc' } }))).toEqual(['svc']);
  expect(await auditModel(NOTE)).toMatchObject({ unowned: 1 });
  const fix = await post('root', 'update', { filters: { owner: null }, values: { owner: 'ann' }, allow_all: true });
  expect(fix.body.data).toMatchObject({ updated: 1 });
  expect(await auditModel(NOTE)).toMatchObject({ unowned: 0 });
});

test('a model that gains a tenant rule while it holds data is refused, with the fix', async () => {
  await createRecords(PLAIN, { records: [{ id: 'p1', data: { title: 't', org: 'acme' } }] });
  const refusal = await resolveLayout(TENANTED).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(LayoutMismatch);
  expect((refusal as LayoutMismatch).change).toMatch(/keyed with no tenant rule, but its definition keys them per tenant, by org/);
  expect((refusal as LayoutMismatch).fix).toMatch(/tenant rule back/);
});

test("a cursor is bound to its caller's reach: another owner's, admin's or another tenant's use of it is 400", async () => {
  const first = await post('cat', 'list', { limit: 1 });
  const cursor = first.body.data.next_cursor as string;
  for (const other of ['ann', 'root'] as const) {
    const reply = await post(other, 'list', { limit: 1, cursor });
    expect([reply.status, reply.body.data.error]).toEqual([400, 'invalid_cursor']);
  }
  expect((await post('cat', 'list', { limit: 1, cursor })).status).toBe(200);
  // The same for an admin's cursor in a caller's hands, where admin reaches more than the caller.
  const wide = (await post('root', 'list', { limit: 1 })).body.data.next_cursor as string;
  expect((await post('ann', 'list', { limit: 1, cursor: wide })).body.data.error).toBe('invalid_cursor');
});

test("an index built for a tenant model's stored records is read per tenant", async () => {
  const grow = (indexed: Array<'title'>) =>
    defineModel({
      name: 'rr_grow',
      description: 'a tenant model that gains an index',
      schema: z.strictObject({ org: z.string(), title: z.string() }),
      indexed,
      tenant: { field: 'org', claim: 'tenant' },
      shards: 2,
    });
  const before = grow([]);
  for (const [tenant, titles] of [
    ['acme', ['c', 'a', 'b']],
    ['globex', ['a', 'z']],
  ] as const) {
    await createRecords(before, { records: titles.map((title, i) => ({ id: `${tenant}${i}`, data: { title } })) }, { reach: { tenant } });
  }
  const after = grow(['title']);
  expect((await buildIndexes(after)).layout.building).toEqual([]);
  const page = await listRecords(after, { order_by: 'title' }, { reach: { tenant: 'acme' } });
  expect(page.items.map((r) => [r.id, r.title])).toEqual([
    ['acme1', 'a'],
    ['acme2', 'b'],
    ['acme0', 'c'],
  ]);
  expect(page.scanned).toBe(3);
  expect((await listRecords(after, { order_by: '-title', limit: 1 }, { reach: { tenant: 'globex' } })).items.map((r) => r.title)).toEqual(['z']);
});

test('a tenant claim of 64 bytes keys records, even beside the longest ids; a longer one is refused', async () => {
  const id = '😀'.repeat(200);
  const made = await post('long', 'create', { id, data: { title: 't'.repeat(300), rank: 1 } });
  expect(made.status).toBe(201);
  expect((await post('long', 'get_one', { filters: { id } })).body.data.id).toBe(id);
  expect((await post('long', 'list', { order_by: 'rank' })).body.data.items).toHaveLength(1);
  const refused = await post('longer', 'list', {});
  expect([refused.status, refused.body.data.error, refused.body.data.required_claim]).toEqual([403, 'forbidden', 'tenant']);
});

test("beside a 64-byte tenant, the longest id and an indexed string of any length fit DynamoDB's keys, and are found", async () => {
  const model = defineModel({
    name: 'rr_wide',
    description: 'a tenant model indexing a string',
    schema: z.strictObject({ org: z.string(), s: z.string() }),
    indexed: ['s'],
    tenant: { field: 'org', claim: 'tenant' },
  });
  const reach = { tenant: 'é'.repeat(32) };
  const id = '😀'.repeat(200);
  const long = 'é'.repeat(150);
  await createRecords(
    model,
    {
      records: [
        { id, data: { s: long } },
        { id: 'short', data: { s: `${long}x` } },
      ],
    },
    { reach },
  );
  const read = (request: Parameters<typeof listRecords>[1]) => listRecords(model, request, { reach });
  expect((await read({ filters: { s: long } })).items.map((r) => r.id)).toEqual([id]);
  expect((await read({ filters: { s: { $gt: long } }, order_by: 's' })).items.map((r) => r.id)).toEqual(['short']);
  // Past the bytes a key keeps, values order by id (docs/record-api.md): here, both descending.
  expect((await read({ order_by: '-s' })).items.map((r) => r.id)).toEqual([id, 'short']);
});
