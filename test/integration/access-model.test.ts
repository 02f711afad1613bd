import fc from 'fast-check';
import * as z from 'zod';
import { ERROR_STATUS } from '../../shared/errors';
import { stringifyExactJson } from '../../shared/json/exact-json';
import { defineModel } from '../../shared/models/define';
import type { FilterNode } from '../../shared/store/filter/ast';
import { AccessTable, keyOf, sameReach, type CallerSpec, type RuledSpec, type View } from '../support/access-model';
import { useApi, type Reply } from '../support/api';
import { sameValue, type Item } from '../support/filter-reference';
import { fuzzed, fuzzTimeout } from '../support/fuzz';
import { Outcomes } from '../support/outcomes';
import { postWithJwt } from '../support/jwt-caller';
import { permutations } from '../support/permutations';
import { applyValues, asRecord, readFilter, readValues, validData, type FieldSpec } from '../support/record-model';
import { removeAll, storedItems } from '../support/stored';

/**
 * Issue 33's property: random callers (several subjects, two tenants, with and without admin,
 * read-only ones, API_TOKENS entries and verified JWTs) do random operations on every record
 * route and the transaction route, on a model with an owner rule, one with a tenant rule and one
 * with both, two of them with a hidden field. test/support/access-model.ts says what each caller
 * reaches; after every step each answer must be exactly the reference's answer for the caller's
 * view, and what is stored, read straight from the table, what the reference holds: no caller
 * ever reads, counts, changes or learns of a record outside its rules. Concurrent batches of
 * writes by different callers must end as some serial order of the acknowledged ones.
 */

const OWNED = defineModel({
  name: 'acc_owned',
  description: 'access test: each caller keeps its own records',
  schema: z.strictObject({ owner: z.string(), s: z.string(), n: z.number().optional(), secret: z.string().optional() }),
  indexed: ['owner', 'n'],
  owner: 'owner',
  fields: { secret: { visibleTo: { scope: 'admin' } } },
});
const TENANTED = defineModel({
  name: 'acc_tenanted',
  description: "access test: each tenant's records apart",
  schema: z.strictObject({ org: z.string(), s: z.string(), n: z.number().optional(), status: z.string().default('new') }),
  indexed: ['n', 's'],
  tenant: { field: 'org', claim: 'tenant' },
  fields: { status: { readOnly: true } },
  shards: 2,
});
const BOTH = defineModel({
  name: 'acc_both',
  description: 'access test: tenants, and owners within them',
  schema: z.strictObject({ org: z.string(), owner: z.string(), s: z.string(), n: z.number().optional(), secret: z.string().optional() }),
  indexed: ['n', 'secret'],
  owner: 'owner',
  tenant: { field: 'org', claim: 'tenant' },
  fields: { secret: { visibleTo: { claim: 'staff' } } },
});
const MODELS = [OWNED, TENANTED, BOTH];

jest.mock('../../shared/models/catalog', () =>
  jest.requireActual('../support/catalog-with').catalogWith(['acc_owned', 'acc_tenanted', 'acc_both'], () => MODELS),
);

// The rules as docs/security.md states them, written out by hand for the reference.
const text: FieldSpec = { kinds: ['string'] };
const SPECS: RuledSpec[] = [
  {
    name: OWNED.name,
    shards: 1,
    fields: { owner: { kinds: ['string'], required: true }, s: { kinds: ['string'], required: true }, n: { kinds: ['number'] }, secret: text },
    indexed: ['owner', 'n'],
    owner: 'owner',
    hidden: { secret: { scope: 'admin' } },
  },
  {
    name: TENANTED.name,
    shards: 2,
    fields: { org: { kinds: ['string'], required: true }, s: { kinds: ['string'], required: true }, n: { kinds: ['number'] }, status: text },
    indexed: ['n', 's'],
    tenant: { field: 'org', claim: 'tenant' },
    readOnly: { status: 'new' },
  },
  {
    name: BOTH.name,
    shards: 1,
    fields: {
      org: { kinds: ['string'], required: true },
      owner: { kinds: ['string'], required: true },
      s: { kinds: ['string'], required: true },
      n: { kinds: ['number'] },
      secret: text,
    },
    indexed: ['n', 'secret'],
    owner: 'owner',
    tenant: { field: 'org', claim: 'tenant' },
    hidden: { secret: { claim: 'staff' } },
  },
];

const CALLERS: CallerSpec[] = [
  { name: 'u1@acme', via: 'token', scopes: ['read', 'write'], sub: 'u1', claims: { tenant: 'acme' } },
  { name: 'u2@acme staff', via: 'token', scopes: ['read', 'write'], sub: 'u2', claims: { tenant: 'acme', staff: 'yes' } },
  { name: 'u1@globex', via: 'token', scopes: ['read', 'write'], sub: 'u1', claims: { tenant: 'globex' } },
  { name: 'u3@globex read-only', via: 'token', scopes: ['read'], sub: 'u3', claims: { tenant: 'globex' } },
  { name: 'admin a1@acme staff', via: 'token', scopes: ['read', 'write', 'admin'], sub: 'a1', claims: { tenant: 'acme', staff: 'yes' } },
  { name: 'no subject@acme', via: 'token', scopes: ['read', 'write'], claims: { tenant: 'acme' } },
  { name: 'admin ops, no tenant', via: 'token', scopes: ['read', 'write', 'admin'], sub: 'ops', claims: {} },
  { name: 'jwt u2@globex', via: 'jwt', scopes: ['read', 'write'], sub: 'u2', claims: { tenant: 'globex' } },
  { name: 'jwt admin a2@globex', via: 'jwt', scopes: ['read', 'write', 'admin'], sub: 'a2', claims: { tenant: 'globex' } },
];
const tokenOf = (i: number) => `access-token-${i}`;
process.env.API_TOKENS = JSON.stringify(
  Object.fromEntries(
    CALLERS.flatMap((c, i) => (c.via === 'token' ? [[tokenOf(i), { scopes: c.scopes, ...(c.sub ? { sub: c.sub } : {}), claims: c.claims }]] : [])),
  ),
);

const api = useApi();

/** Sends a request as caller `i`: with its bearer token to the local server, or as API Gateway delivers a verified JWT. */
function send(i: number, path: string, body: unknown): Promise<Reply> {
  const caller = CALLERS[i];
  if (caller.via === 'token') return api.post(path, body, { authorization: `Bearer ${tokenOf(i)}` });
  const claims = { iss: 'https://id.example.com/', ...(caller.sub ? { sub: caller.sub } : {}), ...caller.claims };
  return postWithJwt(path, body, { claims, scopes: [...caller.scopes] });
}

// ---- what a caller may expect ----

/** One answer a request may get when refused: several when more than one thing is wrong and the order of checks is not promised. */
interface Refusal {
  status: number;
  codes: string[];
}
const refusal = (status: number, ...codes: string[]): Refusal => ({ status, codes });
const FORBIDDEN = refusal(403, 'forbidden');
const STATUS: Record<string, number> = ERROR_STATUS;
const refusalOf = (codes: ReadonlyArray<string>): Refusal[] => codes.map((c) => refusal(STATUS[c] ?? 400, c));

const fail = (message: string, reply?: Reply): never => {
  throw new Error(reply ? `${message}\n  answered ${reply.status} ${reply.text.slice(0, 700)}` : message);
};
const same = (got: unknown, want: unknown, what: string, reply: Reply) => {
  if (!sameValue(got, want)) fail(`${what}: expected ${stringifyExactJson(want)}`, reply);
};

/** The reply must be one of the refusals: an error answer, which wrote nothing (the stored check after the step holds it to that). */
function expectRefused(reply: Reply, refusals: ReadonlyArray<Refusal>): void {
  tally(reply);
  const code = reply.body?.data?.error;
  if (reply.body?.status !== 'error' || !refusals.some((r) => r.status === reply.status && r.codes.includes(code)))
    fail(`expected one of ${refusals.map((r) => `${r.status} ${r.codes.join('|')}`).join(', ')}`, reply);
}

function expectSuccess(reply: Reply, status: number): Record<string, any> {
  tally(reply);
  if (reply.status !== status || reply.body?.status !== 'success') fail(`expected ${status} success`, reply);
  return reply.body.data;
}

/** The route's scope and allow_all's: refused before the request is read, whatever else it holds. */
function scopeRefusal(caller: CallerSpec, needs: 'read' | 'write' | 'admin'): Refusal | undefined {
  return caller.scopes.includes(needs) ? undefined : FORBIDDEN;
}

/** A data object with the rule fields the service fills (owner from the subject, tenant from the claim), or the 403 for naming another's. */
function stamped(view: View, data: unknown): { data: unknown; refusals: Refusal[] } {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { data, refusals: [] };
  const { spec, caller, reach } = view;
  const record = { ...(data as Record<string, unknown>) };
  const refusals: Refusal[] = [];
  // A read-only field is the service's to set: named by any caller, admin too, it is 403; left out, it takes its default.
  for (const [field, initial] of Object.entries(spec.readOnly ?? {})) {
    if (Object.hasOwn(record, field)) refusals.push(FORBIDDEN);
    else record[field] = initial;
  }
  if (spec.tenant) {
    const field = spec.tenant.field;
    if (Object.hasOwn(record, field) && record[field] !== reach!.tenant) refusals.push(FORBIDDEN);
    if (!Object.hasOwn(record, field)) record[field] = reach!.tenant;
  }
  if (spec.owner) {
    const admin = caller.scopes.includes('admin');
    if (Object.hasOwn(record, spec.owner) && record[spec.owner] !== caller.sub && !admin) refusals.push(FORBIDDEN);
    if (!Object.hasOwn(record, spec.owner) && caller.sub !== undefined) record[spec.owner] = caller.sub;
  }
  return { data: record, refusals };
}

/** A filter naming a hidden field is unknown_field; one the view refuses keeps the view's codes. */
const filterCodes = (view: View, filters: unknown): string[] => {
  const read = readFilter(view.model.spec, filters);
  return 'codes' in read ? read.codes : [];
};

/** Whether data or values name a field hidden from the caller (at the top, or under an operator): to it no such field exists. */
const namesHidden = (view: View, value: unknown): boolean =>
  Boolean(value) &&
  typeof value === 'object' &&
  Object.entries(value as object).some(([k, inner]) => view.hidden.includes(k) || (k.startsWith('$') && namesHidden(view, inner)));

const SYSTEM = new Set(['id', '_created_at', '_updated_at', '_version']);
/** On a model with a hidden field (strict, by its declaration) values naming a field it lacks are refused up front too, matched or not, as a hidden one is. */
const namesLacking = (view: View, value: unknown): boolean =>
  Object.keys(view.spec.hidden ?? {}).length > 0 &&
  Boolean(value) &&
  typeof value === 'object' &&
  Object.entries(value as object).some(([k, inner]) =>
    k.startsWith('$') ? namesLacking(view, inner) : !Object.hasOwn(view.spec.fields, k.split('.')[0]) && !SYSTEM.has(k),
  );

/** Values naming a field the caller may not set: another tenant (nobody moves a record) or, without admin, another owner. */
function valuesRefusals(view: View, values: Record<string, unknown>): Refusal[] {
  const named = { ...values, ...((values.$set as object) ?? {}) } as Record<string, unknown>;
  const out: Refusal[] = namesHidden(view, values) || namesLacking(view, values) ? [refusal(400, 'unknown_field'), refusal(422, 'validation_error')] : [];
  if (Object.keys(view.spec.readOnly ?? {}).some((f) => Object.hasOwn(named, f))) out.push(FORBIDDEN);
  // Its own tenant, what the record holds, is no change.
  if (view.spec.tenant && Object.hasOwn(named, view.spec.tenant.field) && named[view.spec.tenant.field] !== view.reach!.tenant) out.push(FORBIDDEN);
  if (view.spec.owner && Object.hasOwn(named, view.spec.owner) && !view.caller.scopes.includes('admin') && named[view.spec.owner] !== view.caller.sub)
    out.push(FORBIDDEN);
  return out;
}

// ---- the steps ----

interface HeldCursor {
  caller: number;
  model: RuledSpec;
  filters: unknown;
  order: string;
  /** order_by as the list sent it: a cursor is bound to the request as sent, and none is id order too. */
  orderBy?: string;
  cursor: string;
  last?: Item;
}

interface World {
  table: AccessTable;
  cursors: HeldCursor[];
}

const hidden = (view: View) => view.hidden;
/** A field the caller cannot see, named where fields are listed: unknown_field, and a hidden one too. */
const unknownNames = (view: View, names: ReadonlyArray<string>) => {
  const known = ['id', '_created_at', '_updated_at', '_version', ...Object.keys(view.model.spec.fields)];
  return names.filter((n) => !known.includes(n));
};

type Body = Record<string, any>;
type Run = (w: World, caller: number, model: RuledSpec, body: Body) => Promise<void>;

async function create(w: World, i: number, spec: RuledSpec, body: Body): Promise<void> {
  const caller = CALLERS[i];
  const reply = await send(i, `/api/db/${spec.name}/create`, body);
  const scope = scopeRefusal(caller, 'write');
  if (scope) return expectRefused(reply, [scope]);
  const view = w.table.view(spec, caller);
  if (view === 'refused') return expectRefused(reply, [FORBIDDEN, refusal(400, 'invalid_request'), refusal(422, 'validation_error')]);
  const batch = Array.isArray(body.data);
  const list = (batch ? body.data : [body.data]) as unknown[];
  const stamps = list.map((d) => stamped(view, d));
  const refusals = stamps.flatMap((s) => s.refusals);
  if (list.some((d) => namesHidden(view, d))) refusals.push(refusal(400, 'unknown_field'));
  // Validation of what the caller sent, then of the whole record the service makes of it.
  const sent = { ...body, data: batch ? stamps.map((s) => s.data) : stamps[0].data };
  const expected = view.sendable().create(sent as { data: unknown; id?: string; ids?: string[] });
  const codes = 'codes' in expected ? expected.codes : [];
  const refused = [...refusals, ...refusalOf(codes)];
  if ('entries' in expected && expected.entries.some((e) => !validData(view.model.spec.fields, e.data))) refused.push(refusal(422, 'validation_error'));
  // An id another owner of the tenant holds is taken: refused, naming only ids the caller sent.
  const given: string[] = batch ? (body.ids ?? []) : body.id !== undefined ? [body.id] : [];
  if (given.some((id) => view.takenOutside(id))) refused.push(refusal(409, 'conflict'));
  if (refused.length > 0) {
    expectRefused(reply, refused);
    if (reply.body.data.ids && !reply.body.data.ids.every((id: string) => given.includes(id))) fail('a conflict named an id the caller did not send', reply);
    return;
  }
  const data = expectSuccess(reply, 201);
  const records: Array<Record<string, any>> = batch ? data.records : [data];
  if (!('entries' in expected) || records?.length !== expected.entries.length) return fail('records answered', reply);
  records.forEach((record, k) => {
    const { id, _created_at, _updated_at, _version, ...rest } = record;
    const entry = expected.entries[k];
    if (entry.id !== undefined && id !== entry.id) fail(`id of record ${k}`, reply);
    same(rest, entry.data, `data of record ${k}`, reply);
    if (_version !== 1) fail(`version of record ${k}`, reply);
    view.model.records.set(id, { id, d: rest, _created_at, _updated_at, _version });
  });
  view.writeBack(records.map((r) => r.id));
}

/** update and delete by filter, and upsert: the bulk reference on the caller's view. */
async function bulk(w: World, i: number, spec: RuledSpec, body: Body, op: 'update' | 'delete'): Promise<void> {
  const caller = CALLERS[i];
  const reply = await send(i, `/api/db/${spec.name}/${op}`, body);
  const routeScope = op === 'delete' && !spec.owner ? 'admin' : 'write';
  const scope = scopeRefusal(caller, routeScope) ?? (body.allow_all === true ? scopeRefusal(caller, 'admin') : undefined);
  if (scope) return expectRefused(reply, [scope]);
  const view = w.table.view(spec, caller);
  if (view === 'refused') return expectRefused(reply, [FORBIDDEN, ...refusalOf(['invalid_request', 'invalid_filter', 'unknown_field', 'empty_filter'])]);
  const refused = body.values ? valuesRefusals(view, body.values) : [];
  if (body.upsert) return upsert(view, body, reply, refused);
  const expected = view.model.bulk(body as never, body.values);
  if ('codes' in expected) return expectRefused(reply, [...refused, ...refusalOf(expected.codes)]);
  if (refused.length > 0) return expectRefused(reply, refused);
  const n = expected.items.length;
  const counts = op === 'update' ? { updated: n } : { deleted: n };
  same(expectSuccess(reply, 200), { ...counts, matched: n, skipped: 0, complete: true, next_cursor: null }, `${op} answer`, reply);
  if (op === 'update') view.model.update(expected.items, expected.changes!);
  else view.model.delete(expected.items);
  view.writeBack(expected.items.map((item) => item.id as string));
}

async function upsert(view: View, body: Body, reply: Reply, valuesRefused: Refusal[]): Promise<void> {
  // The filter's equalities are the seed of the record it may create: naming another's is that create's 403, whatever else is wrong.
  const seed = Object.fromEntries(Object.entries(body.filters as object).filter(([k, v]) => k !== 'id' && (typeof v !== 'object' || v === null)));
  const refused = [...valuesRefused, ...stamped(view, seed).refusals];
  const expected = view.sendable().upsert(body as never);
  if ('codes' in expected) return expectRefused(reply, [...refused, ...refusalOf(expected.codes)]);
  if ('items' in expected) {
    if (refused.length > 0) return expectRefused(reply, refused);
    const n = expected.items.length;
    same(expectSuccess(reply, 200), { updated: n, matched: n, skipped: 0, complete: true, next_cursor: null, upserted: false }, 'upsert answer', reply);
    view.model.update(expected.items, expected.changes);
    return view.writeBack(expected.items.map((item) => item.id as string));
  }
  const made = stamped(view, expected.create.data);
  const all = [...refused, ...made.refusals];
  if (!validData(view.model.spec.fields, made.data)) all.push(refusal(422, 'validation_error'));
  if (view.takenOutside(expected.create.id)) all.push(refusal(409, 'conflict'));
  if (all.length > 0) return expectRefused(reply, all);
  same(expectSuccess(reply, 200), { updated: 0, matched: 0, skipped: 0, complete: true, next_cursor: null, upserted: true }, 'upsert answer', reply);
  const item = (await storedItems(view.spec)).find((s) => s.id === expected.create.id && view.reaches(s));
  if (!item) return fail('upserted record not stored', reply);
  view.model.records.set(expected.create.id, {
    id: expected.create.id,
    d: made.data,
    _created_at: item._created_at,
    _updated_at: item._updated_at,
    _version: 1,
  });
  view.writeBack([expected.create.id]);
}

/** A list request's refusals on the view: a hidden field as order_by is unknown_field, as it is to the filter. */
function listed(view: View, body: Body): Refusal[] | { node: FilterNode; order: string } {
  const expected = view.model.listed(body);
  const order = String(body.order_by ?? 'id').replace(/^-/, '');
  const codes = 'codes' in expected ? [...expected.codes] : [];
  if (hidden(view).includes(order)) codes.push('unknown_field', 'invalid_order_by');
  return codes.length > 0 ? refusalOf(codes) : (expected as { node: FilterNode; order: string });
}

/** No answer of a tenant model reads past the caller's tenant: `scanned` counts only its records. */
function scannedWithin(view: View, reply: Reply): void {
  if (!view.spec.tenant) return;
  const tenantRecords = view.table
    .items(view.spec)
    .filter((item) => (item.d as Record<string, unknown>)[view.spec.tenant!.field] === view.reach!.tenant).length;
  if (Number(reply.body.data.scanned) > tenantRecords) fail(`scanned ${reply.body.data.scanned} records, the tenant holds ${tenantRecords}`, reply);
}

function page(view: View, reply: Reply, want: Item[], limit: number): Array<Record<string, any>> {
  const data = expectSuccess(reply, 200);
  same(data.items, want.slice(0, limit).map(asRecord), 'page', reply);
  if (want.length > limit && data.next_cursor === null) fail('next_cursor null while records remain', reply);
  scannedWithin(view, reply);
  return data.items;
}

function hold(w: World, reply: Reply, held: Omit<HeldCursor, 'cursor'>): void {
  const cursor = reply.body.data.next_cursor;
  if (cursor !== null) w.cursors.push({ ...held, cursor });
  if (w.cursors.length > 4) w.cursors.shift();
}

const STEPS: Record<string, Run> = {
  create,
  update: (w, i, spec, body) => bulk(w, i, spec, body, 'update'),
  delete: (w, i, spec, body) => bulk(w, i, spec, body, 'delete'),

  async list(w, i, spec, body) {
    const reply = await send(i, `/api/db/${spec.name}/list`, body);
    const view = w.table.view(spec, CALLERS[i]);
    if (view === 'refused') return expectRefused(reply, [FORBIDDEN, ...refusalOf(['invalid_filter', 'unknown_field', 'invalid_order_by'])]);
    const expected = listed(view, body);
    if (Array.isArray(expected)) return expectRefused(reply, expected);
    const items = page(view, reply, view.model.sorted(expected.node, expected.order), body.limit);
    const last = items.at(-1);
    hold(w, reply, {
      caller: i,
      model: spec,
      filters: body.filters,
      order: expected.order,
      orderBy: body.order_by,
      last: last ? view.model.records.get(last.id) : undefined,
    });
  },

  /** Goes on with a held cursor, as the caller that got it or as another: another's reach is refused, never shown. */
  async continue(w, i, _spec, { pick, limit, own }) {
    const held = w.cursors[pick % Math.max(1, w.cursors.length)];
    if (!held) return;
    const who = own ? held.caller : i;
    const spec = held.model;
    const body = { filters: held.filters, order_by: held.orderBy, limit, cursor: held.cursor };
    const reply = await send(who, `/api/db/${spec.name}/list`, body);
    const view = w.table.view(spec, CALLERS[who]);
    if (view === 'refused') return expectRefused(reply, [FORBIDDEN, refusal(400, 'invalid_cursor')]);
    const expected = listed(view, body);
    const refusals = [...(Array.isArray(expected) ? expected : []), refusal(400, 'invalid_cursor')];
    if (!sameReach(spec, CALLERS[held.caller], CALLERS[who]) || Array.isArray(expected)) return expectRefused(reply, refusals);
    // Two callers reaching the same records may share a cursor; refusing it would show nothing either.
    if (who !== held.caller && reply.status === 400) return expectRefused(reply, refusals);
    w.cursors.splice(w.cursors.indexOf(held), 1);
    const items = page(view, reply, view.model.after(held, expected.node), limit);
    const last = items.at(-1);
    hold(w, reply, { ...held, caller: who, last: last ? view.model.records.get(last.id) : held.last });
  },

  async count(w, i, spec, body) {
    const reply = await send(i, `/api/db/${spec.name}/count`, body);
    const view = w.table.view(spec, CALLERS[i]);
    if (view === 'refused') return expectRefused(reply, [FORBIDDEN, ...refusalOf(['invalid_filter', 'unknown_field'])]);
    const expected = listed(view, body);
    if (Array.isArray(expected)) return expectRefused(reply, expected);
    same(expectSuccess(reply, 200).count, view.model.sorted(expected.node, 'id').length, 'count', reply);
    scannedWithin(view, reply);
  },

  async get_one(w, i, spec, body) {
    const reply = await send(i, `/api/db/${spec.name}/get_one`, body);
    const view = w.table.view(spec, CALLERS[i]);
    if (view === 'refused') return expectRefused(reply, [FORBIDDEN, ...refusalOf(['invalid_filter', 'unknown_field'])]);
    const fields: string[] | undefined = body.fields;
    const codes = [...filterCodes(view, body.filters), ...(fields && unknownNames(view, fields).length > 0 ? ['unknown_field'] : [])];
    if (codes.length > 0) return expectRefused(reply, refusalOf(codes));
    const node = (readFilter(view.model.spec, body.filters) as { node: FilterNode }).node;
    const first = view.model.sorted(node, 'id')[0];
    if (!first) return expectRefused(reply, [refusal(404, 'not_found')]);
    const record = asRecord(first);
    const want = fields ? Object.fromEntries(Object.entries(record).filter(([k]) => k === 'id' || fields.includes(k))) : record;
    same(expectSuccess(reply, 200), want, 'get_one', reply);
  },

  async transaction(w, i, _spec, { operations }) {
    const reply = await send(i, '/api/db/transaction', { operations });
    return transaction(w, i, operations, reply);
  },
};

/** A transaction on the caller's views: all of it, or a refusal of one of its operations and nothing written. */
function transaction(w: World, i: number, operations: Body[], reply: Reply): void {
  const caller = CALLERS[i];
  // The route writes: a token that only reads is refused before the operations are read.
  const scope = scopeRefusal(caller, 'write');
  if (scope) {
    expectRefused(reply, [scope]);
    return;
  }
  const refused: Refusal[] = [];
  const conflict = refusal(409, 'conflict');
  // What each operation does to its record, when nothing refuses the transaction.
  const plans: Array<{ view: View; data?: Record<string, unknown> } | undefined> = [];
  for (const op of operations) {
    plans.push(undefined);
    const spec = SPECS.find((m) => m.name === op.model)!;
    const needs = op.op === 'check' ? 'read' : op.op === 'delete' && !spec.owner ? 'admin' : 'write';
    const view = w.table.view(spec, caller);
    if (scopeRefusal(caller, needs)) {
      refused.push(FORBIDDEN);
      continue;
    }
    if (view === 'refused') {
      // Its credential lacks what a rule needs; what else is wrong with the operation (a field it
      // does not know or may not see, data its model refuses) is checked first, as the routes may.
      refused.push(FORBIDDEN, ...refusalOf(['invalid_request', 'invalid_filter', 'unknown_field', 'validation_error']));
      continue;
    }
    const record = view.model.records.get(op.id);
    if (op.op === 'create') {
      const made = stamped(view, op.data);
      refused.push(...made.refusals);
      if (namesHidden(view, op.data)) refused.push(refusal(400, 'unknown_field'));
      if (!validData(view.sendable().spec.fields, op.data) || !validData(view.model.spec.fields, made.data)) refused.push(refusal(422, 'validation_error'));
      if (record || view.takenOutside(op.id)) refused.push(conflict);
      plans[plans.length - 1] = { view, data: made.data as Record<string, unknown> };
      continue;
    }
    const codes = op.filters === undefined ? [] : filterCodes(view, op.filters);
    refused.push(...refusalOf(codes));
    const node = codes.length === 0 && op.filters !== undefined ? (readFilter(view.model.spec, op.filters) as { node: FilterNode }).node : undefined;
    if (!record || (node && !view.model.sorted(node, 'id').some((item) => item.id === op.id))) refused.push(conflict);
    if (op.op === 'update') {
      refused.push(...valuesRefusals(view, op.values));
      const changes = readValues(view.model.spec.fields, op.values, false);
      const data = changes && record ? applyValues(record.d as Record<string, unknown>, changes) : undefined;
      if (changes === null) refused.push(refusal(400, 'invalid_request'));
      else if (record && !validData(view.model.spec.fields, data)) refused.push(refusal(422, 'validation_error'));
      plans[plans.length - 1] = { view, data };
      continue;
    }
    plans[plans.length - 1] = { view };
  }
  if (refused.length > 0) {
    expectRefused(reply, refused);
    // A record outside the caller's reach is missing to it, never "there but not matching".
    const named = operations[Number(reply.body.data.operation)];
    const view = named && w.table.view(SPECS.find((m) => m.name === named.model)!, caller);
    if (
      reply.body.data.error === 'conflict' &&
      named.op !== 'create' &&
      view !== 'refused' &&
      !view.model.records.has(named.id) &&
      reply.body.data.reason !== 'missing'
    )
      fail('a record outside the caller reach was told apart from a missing one', reply);
    return;
  }
  const data = expectSuccess(reply, 200);
  if (data.results?.length !== operations.length) fail('one result per operation', reply);
  operations.forEach((op, k) => {
    const { view, data: want } = plans[k]!;
    const result = data.results[k];
    if (op.op === 'check' || op.op === 'delete') {
      same(result, { op: op.op, id: op.id, ...(op.op === 'check' ? { check: true } : { deleted: true }) }, `result ${k}`, reply);
      if (op.op === 'delete') {
        view.model.records.delete(op.id);
        view.writeBack([op.id]);
      }
      return;
    }
    const { id, _created_at, _updated_at, _version, ...rest } = result.record ?? {};
    const version = op.op === 'create' ? 1 : (view.model.records.get(op.id)!._version as number) + 1;
    same({ op: result.op, id, data: rest, version: _version }, { op: op.op, id: op.id, data: want, version }, `result ${k}`, reply);
    view.model.records.set(op.id, { id, d: rest, _created_at, _updated_at, _version });
    view.writeBack([op.id]);
  });
}

// ---- the stored table against the reference ----

async function expectStored(w: World, step: string): Promise<void> {
  for (const spec of SPECS) {
    const stored = await storedItems(spec);
    const want = new Map(w.table.items(spec).map((item) => [keyOf(spec, item), item]));
    const keys = stored.map((item) => keyOf(spec, item)).sort();
    if (!sameValue(keys, [...want.keys()].sort()))
      fail(`after ${step}: ${spec.name} stores ${JSON.stringify(keys)}, expected ${JSON.stringify([...want.keys()].sort())}`);
    for (const item of stored) {
      const ref = want.get(keyOf(spec, item))!;
      const got = { id: item.id, d: item.d, _created_at: item._created_at, _version: item._version };
      if (!sameValue(got, { id: ref.id, d: ref.d, _created_at: ref._created_at, _version: ref._version }))
        fail(`after ${step}: ${spec.name} stores ${stringifyExactJson(got)}, expected ${stringifyExactJson(ref)}`);
      // The service's own stamp: taken as stored, once the record is what the reference says.
      ref._updated_at = item._updated_at;
    }
  }
}

class Step implements fc.AsyncCommand<World, World> {
  constructor(
    readonly caller: number,
    readonly model: number,
    readonly op: string,
    readonly body: Body,
  ) {}
  check = () => true;
  async run(w: World): Promise<void> {
    steps += 1;
    outcomes.current = this.op;
    await STEPS[this.op](w, this.caller, SPECS[this.model], this.body);
    await expectStored(w, this.toString());
  }
  toString(): string {
    return `${CALLERS[this.caller].name}: ${this.op} ${SPECS[this.model].name} ${stringifyExactJson(this.body)}`;
  }
}

// ---- random requests, small and shrinkable ----

const IDS = ['a', 'b', 'c', 'd'];
const SUBJECTS = ['u1', 'u2', 'u3', 'a1'];
const TENANTS = ['acme', 'globex'];
const id = fc.constantFrom(...IDS);
const s = fc.constantFrom('x', 'y', 'z');
const n = fc.constantFrom(1, 2, 3);
const secret = fc.constantFrom('sec-1', 'sec-2');
const owner = fc.constantFrom(...SUBJECTS);
const org = fc.constantFrom(...TENANTS);

/** Data of the model's own fields, mostly valid; sometimes naming an owner or tenant, sometimes what the model refuses. */
const dataFor = (spec: RuledSpec) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.record({ s, n, ...(spec.fields.secret ? { secret } : {}) }, { requiredKeys: ['s'] }) },
    ...(spec.owner ? [{ weight: 2, arbitrary: fc.record({ s, owner }) }] : []),
    ...(spec.tenant ? [{ weight: 2, arbitrary: fc.record({ s, org }) }] : []),
    ...(spec.readOnly ? [{ weight: 1, arbitrary: fc.record({ s, status: s }) }] : []),
    { weight: 1, arbitrary: fc.record({ n, nope: s }, { requiredKeys: [] }) },
  );
const leaf = fc.oneof(
  id.map((v) => ({ id: v })),
  fc.uniqueArray(id, { minLength: 1, maxLength: 2 }).map((v) => ({ id: { $in: v } })),
  s.map((v) => ({ s: v })),
  n.map((v) => ({ n: { $gte: v } })),
  owner.map((v) => ({ owner: v })),
  org.map((v) => ({ org: v })),
  secret.map((v) => ({ secret: v })),
  fc.constantFrom('new', 'x').map((v) => ({ status: v })),
);
// A rule field inside $or, $not and $and: none of them may reach past the rule.
const filter = fc.oneof(
  { weight: 4, arbitrary: leaf },
  fc.tuple(leaf, leaf).map(([a, b]) => ({ $or: [a, b] })),
  leaf.map((a) => ({ $not: a })),
  fc.tuple(leaf, leaf).map(([a, b]) => ({ $and: [a, { $not: b }] })),
  fc.constant({}),
);
const values = fc.oneof(
  { weight: 4, arbitrary: fc.record({ s, n, secret }, { requiredKeys: [] }).filter((v) => Object.keys(v).length > 0) },
  owner.map((v) => ({ owner: v })),
  org.map((v) => ({ org: v })),
  s.map((v) => ({ status: v })),
  n.map((v) => ({ $inc: { n: v } })),
  s.map((v) => ({ $set: { s: v } })),
);
const guard = fc.record({ allow_all: fc.constant(true), max_affected: fc.nat(2) }, { requiredKeys: [] });
const fieldsOf = fc.subarray(['s', 'n', 'secret', 'owner', 'org', 'nope'], { minLength: 1, maxLength: 3 });
const orders = ['id', '-id', 'n', '-n', 'owner', 's', 'secret'];
const limit = fc.constantFrom(1, 2);
const operationOn = (spec: RuledSpec) =>
  fc.oneof(
    fc.record({ model: fc.constant(spec.name), op: fc.constant('create'), id, data: dataFor(spec) }),
    fc.record(
      { model: fc.constant(spec.name), op: fc.constant('update'), id, values, filters: fc.option(leaf, { nil: undefined }) },
      { requiredKeys: ['model', 'op', 'id', 'values'] },
    ),
    fc.record(
      { model: fc.constant(spec.name), op: fc.constant('delete'), id, filters: fc.option(leaf, { nil: undefined }) },
      { requiredKeys: ['model', 'op', 'id'] },
    ),
    // A check names its filters ({}: the record exists).
    fc.record({ model: fc.constant(spec.name), op: fc.constant('check'), id, filters: fc.oneof(fc.constant({}), leaf) }),
  );
const operation = fc.constantFrom(...SPECS).chain(operationOn);

const who = fc.nat(CALLERS.length - 1);
const which = fc.nat(SPECS.length - 1);
const step = (op: string, body: (spec: RuledSpec) => fc.Arbitrary<Body>) =>
  fc.tuple(who, which).chain(([c, m]) => body(SPECS[m]).map((b) => new Step(c, m, op, b)));
const given = fc.option(id, { nil: undefined, freq: 3 });
// Listed by weight: fc.commands picks among its arbitraries evenly.
const STEP_ARBITRARIES = [
  step('create', (spec) => fc.record({ data: dataFor(spec), id: given }, { requiredKeys: ['data'] })),
  step('create', (spec) => fc.record({ data: dataFor(spec), id: given }, { requiredKeys: ['data'] })),
  step('create', (spec) =>
    fc
      .array(dataFor(spec), { minLength: 1, maxLength: 3 })
      .chain((list) =>
        fc
          .option(fc.uniqueArray(id, { minLength: list.length, maxLength: list.length }), { nil: undefined })
          .map((ids) => ({ data: list, ...(ids ? { ids } : {}) })),
      ),
  ),
  step('update', () => fc.tuple(filter, values, guard).map(([filters, v, g]) => ({ filters, values: v, ...g }))),
  step('update', () => fc.tuple(id, values).map(([v, vs]) => ({ filters: { id: v }, values: vs }))),
  step('update', () =>
    fc
      .tuple(id, s, fc.option(leaf, { nil: undefined }))
      .map(([v, sv, extra]) => ({ filters: { id: v, ...extra }, values: { $set: { n: 9 }, $setOnInsert: { s: sv } }, upsert: true })),
  ),
  step('delete', () => fc.tuple(filter, guard).map(([filters, g]) => ({ filters, ...g }))),
  step('delete', () => id.map((v) => ({ filters: { id: v } }))),
  step('list', () => fc.record({ filters: filter, order_by: fc.constantFrom(...orders), limit }, { requiredKeys: ['limit'] })),
  step('list', () => fc.record({ order_by: fc.constantFrom(...orders), limit })),
  step('continue', () => fc.record({ pick: fc.nat(3), limit, own: fc.boolean() })),
  step('continue', () => fc.record({ pick: fc.nat(3), limit, own: fc.boolean() })),
  step('count', () => fc.record({ filters: filter }, { requiredKeys: [] })),
  step('get_one', () => fc.record({ filters: filter, fields: fieldsOf }, { requiredKeys: ['filters'] })),
  step('transaction', () =>
    fc
      .array(operation, { minLength: 1, maxLength: 3 })
      .filter((operations) => new Set(operations.map((o) => `${o.model}/${o.id}`)).size === operations.length)
      .map((operations) => ({ operations })),
  ),
];

// ---- the properties ----

let steps = 0;
const outcomes = new Outcomes();
const { tally } = outcomes;

async function emptyTable(): Promise<World> {
  for (const spec of SPECS) await removeAll(spec);
  return { table: new AccessTable(), cursors: [] };
}

/** Callers that write, in both tenants, with and without admin: each sequence starts from their records, so that views hold pages. */
const SEEDERS = [0, 1, 2, 4, 7];

/** A table where each writing caller holds a few records of each model it reaches (ids the service makes, and `a`), made through the API and held to the reference as any step. */
async function seeded(): Promise<World> {
  const world = await emptyTable();
  outcomes.current = 'seed';
  for (const spec of SPECS)
    for (const seeder of SEEDERS) {
      await STEPS.create(world, seeder, spec, { data: [{ s: 'x', n: 1 }, { s: 'y', n: 2 }, { s: 'z' }] });
      await STEPS.create(world, seeder, spec, { id: 'a', data: { s: 'y', n: 3 } });
    }
  await expectStored(world, 'seeding');
  return world;
}

test(
  'random callers on every record route and transactions answer and store what their reach allows',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(STEP_ARBITRARIES, { maxCommands: 60, size: 'max' }), async (commands) => {
        await fc.asyncModelRun(async () => {
          const world = await seeded();
          return { model: world, real: world };
        }, commands);
      }),
      { ...fuzzed(30, 3300), interruptAfterTimeLimit: fuzzTimeout(150_000) },
    );
  },
  fuzzTimeout(200_000),
);

type Write = { caller: number; model: number; op: 'update' | 'delete' | 'upsert' | 'create'; id: string; value: number };

const writeArbitrary = fc.record({
  caller: who,
  model: which,
  op: fc.constantFrom<Write['op']>('update', 'delete', 'upsert', 'create'),
  id: fc.constantFrom('a', 'b'),
  value: n,
});

const requestOf = (w: Write): [string, Body] => {
  const name = SPECS[w.model].name;
  if (w.op === 'create') return [`/api/db/${name}/create`, { id: w.id, data: { s: 'x', n: w.value } }];
  if (w.op === 'delete') return [`/api/db/${name}/delete`, { filters: { id: w.id } }];
  return [
    `/api/db/${name}/update`,
    {
      filters: { id: w.id },
      values: { $inc: { n: w.value }, ...(w.op === 'upsert' ? { $setOnInsert: { s: 'y' } } : {}) },
      ...(w.op === 'upsert' ? { upsert: true } : {}),
    },
  ];
};

/** What `write` does to the table, as the reference says its caller reaches it; undefined when it would be refused. */
function applyWrite(table: AccessTable, write: Write, data: Body): boolean {
  const spec = SPECS[write.model];
  const view = table.view(spec, CALLERS[write.caller]);
  if (view === 'refused') return false;
  const held = view.model.records.get(write.id);
  // A write whose record another removed between its read and its write answers `skipped`
  // (docs/record-api.md) and changes nothing. An upsert does so too (upserted: false), which no
  // serial order explains; the store answered so before the row rules, so it is not held here.
  if (write.op !== 'create' && data.skipped === 1 && (data.updated ?? data.deleted) === 0) return true;
  if (write.op === 'create') {
    if (held || view.takenOutside(write.id)) return false;
    const made = stamped(view, { s: 'x', n: write.value });
    if (made.refusals.length > 0 || !validData(view.model.spec.fields, made.data)) return false;
    view.model.records.set(write.id, { id: write.id, d: made.data, _version: 1 });
  } else if (write.op === 'delete') {
    if (data.deleted !== (held ? 1 : 0)) return false;
    view.model.records.delete(write.id);
  } else if (held) {
    if (data.updated !== 1 || (write.op === 'upsert' && data.upserted !== false)) return false;
    const d = held.d as Record<string, unknown>;
    view.model.records.set(write.id, { ...held, d: { ...d, n: Number(d.n ?? 0) + write.value }, _version: (held._version as number) + 1 });
  } else {
    if (write.op !== 'upsert' || data.upserted !== true || view.takenOutside(write.id)) return data.updated === 0 && write.op === 'update';
    const made = stamped(view, { s: 'y', n: write.value });
    if (made.refusals.length > 0) return false;
    view.model.records.set(write.id, { id: write.id, d: made.data, _version: 1 });
  }
  view.writeBack([write.id]);
  return true;
}

const comparable = (table: AccessTable, spec: RuledSpec) =>
  table
    .items(spec)
    .map((i) => ({ key: keyOf(spec, i), d: i.d, _version: i._version }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));

test(
  'concurrent writes by different callers end as some serial order of the acknowledged ones, each within its reach',
  async () => {
    // Seeds: 'a' and 'b' in each tenant of each model, owned by different subjects.
    const seeders = [0, 1, 2, 7];
    await fc.assert(
      fc.asyncProperty(fc.array(writeArbitrary, { minLength: 2, maxLength: 4 }), async (writes) => {
        const world = await emptyTable();
        outcomes.current = 'seed';
        for (const spec of SPECS.keys())
          for (const seeder of seeders) for (const seedId of ['a', 'b']) await STEPS.create(world, seeder, SPECS[spec], { id: seedId, data: { s: 'x', n: 1 } });
        await expectStored(world, 'seeding');
        const replies = await Promise.all(writes.map((w) => send(w.caller, ...requestOf(w))));
        outcomes.current = 'concurrent';
        replies.forEach(tally);
        const odd = replies.find((r) => r.status >= 500 || r.body?.data?.error === 'record_busy');
        if (odd) fail('a concurrent write neither applied nor refused', odd);
        const acknowledged = writes.flatMap((w, k) => (replies[k].status < 300 ? [{ w, data: replies[k].body.data as Body }] : []));
        const stored = new AccessTable();
        for (const spec of SPECS) for (const item of await storedItems(spec)) stored.put(spec, item);
        for (const order of permutations(acknowledged)) {
          const table = world.table.clone();
          if (!order.every(({ w, data }) => applyWrite(table, w, data))) continue;
          if (SPECS.every((spec) => sameValue(comparable(table, spec), comparable(stored, spec)))) return;
        }
        fail(
          `no serial order of the acknowledged writes ${stringifyExactJson(acknowledged)} gives what is stored: ${stringifyExactJson(SPECS.map((spec) => comparable(stored, spec)))}`,
        );
      }),
      { ...fuzzed(30, 3400), interruptAfterTimeLimit: fuzzTimeout(90_000) },
    );
  },
  fuzzTimeout(120_000),
);

afterAll(() => console.log(`access model: ${steps} steps on ${process.env.RG_TEST_ENGINE}\n${outcomes.summary()}`));
