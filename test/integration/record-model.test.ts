import fc from 'fast-check';
import * as z from 'zod';
import { stringifyExactJson } from '../../shared/json/exact-json';
import { defineModel } from '../../shared/models/define';
import type { FilterNode } from '../../shared/store/filter/ast';
import type { Item } from '../support/filter-reference';
import { sameValue } from '../support/filter-reference';
import { againstArtifacts, useApi, type Api, type Reply } from '../support/api';
import { conditionOn } from '../support/filter-arbitraries';
import { fuzzed, fuzzTimeout } from '../support/fuzz';
import { Outcomes } from '../support/outcomes';
import { permutations } from '../support/permutations';
import { asRecord, RecordModel, type FieldSpec, type HeldCursor, type ModelSpec, type Refusal } from '../support/record-model';
import { removeAll, storedItems } from '../support/stored';

/**
 * A stateful, model-based test of the whole record API (issue 19): random sequences of create
 * (one and batch, ids given and made, conflicts), update (plain values and the operators of issue
 * 32), upsert, delete, list with paging interleaved
 * with writes (a cursor held across them and continued later), count and get_one, sent over HTTP
 * and held step by step to the reference of test/support/record-model.ts: status, error code,
 * body, and what is stored afterwards. Run with random seeds by `npm run fuzz -- model`.
 */

// Array, nested, optional, mixed-kind, indexed and sharded fields, as in the findings.
const schema = z.strictObject({
  s: z.string(),
  n: z.number().optional(),
  mix: z.union([z.number(), z.string()]).optional(),
  tags: z.array(z.string()).optional(),
  arr: z.array(z.union([z.number(), z.string(), z.boolean()])).optional(),
  meta: z.object({ a: z.number().optional(), inner: z.object({ b: z.string().optional() }).optional() }).optional(),
  flag: z.boolean().optional(),
});
const THROWAWAY = [1, 4].map((shards) =>
  defineModel({ name: `model_${shards}`, description: 'model-based test model', schema, indexed: ['s', 'n', 'mix'], shards }),
);

// The bundles in cdk.out serve only the models that ship; there the test runs on reaction.
jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, ...THROWAWAY.map((m) => m.name)],
    findModel: (name: string) => THROWAWAY.find((m) => m.name === name) ?? actual.findModel(name),
  };
});

// The fields as the docs describe them, written out by hand for the reference.
const FIELDS: Record<string, FieldSpec> = {
  s: { kinds: ['string'], required: true },
  n: { kinds: ['number'] },
  mix: { kinds: ['number', 'string'] },
  tags: { kinds: ['array'], items: { kinds: ['string'] } },
  arr: { kinds: ['array'], items: { kinds: ['number', 'string', 'boolean'] } },
  meta: { kinds: ['object'], props: { a: { kinds: ['number'] }, inner: { kinds: ['object'], props: { b: { kinds: ['string'] } } } } },
  flag: { kinds: ['boolean'] },
};
const REACTION: ModelSpec = {
  name: 'reaction',
  shards: 1,
  fields: { user_id: { kinds: ['number'], required: true }, user_name: { kinds: ['string'] }, content: { kinds: ['string'], required: true } },
  indexed: ['user_id', 'content'],
};
const MODELS: ModelSpec[] = againstArtifacts()
  ? [REACTION]
  : [...THROWAWAY.map((m) => ({ name: m.name, shards: m.shards, fields: FIELDS, indexed: [...m.indexed] })), REACTION];

const api = useApi();

// ---- values, small and shrinkable ----

const STRINGS = ['', 'a', 'ab', 'b', 'é', '～', '😀'];
const NUMBERS = [0, 1, -1, 1.5, 7, -0.25];
// Given ids; service-made ones (ULIDs, starting with a digit) sort before them.
const IDS = ['a', 'b', 'k', 'm', 'q', 'é', '～', 'a😀'];
const string = fc.constantFrom(...STRINGS);
const number = fc.constantFrom(...NUMBERS);
const scalar = fc.oneof(string, number, fc.boolean());
/** Any value, of whatever kind: operands and values of a kind the field cannot hold. */
const anyValue = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.record({ a: number }, { requiredKeys: [] }));

/** A value the field can hold. */
function holdable(spec: FieldSpec): fc.Arbitrary<unknown> {
  return fc.oneof(
    ...spec.kinds.map((kind): fc.Arbitrary<unknown> => {
      if (kind === 'string') return string;
      if (kind === 'number') return number;
      if (kind === 'boolean') return fc.boolean();
      if (kind === 'array') return fc.array(holdable(spec.items!), { maxLength: 3 });
      return fc.record(Object.fromEntries(Object.entries(spec.props!).map(([k, s]) => [k, holdable(s)])), { requiredKeys: [] });
    }),
  );
}

/** `object` with one more own key (even "__proto__", which a literal or an assignment would not make). */
const withKey = (object: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty({ ...object }, key, { value, enumerable: true, writable: true, configurable: true });
const forbiddenKey = fc.constantFrom('__proto__', 'constructor', 'prototype');

function arbitraries(spec: ModelSpec) {
  const names = Object.keys(spec.fields);
  const required = names.filter((k) => spec.fields[k].required);
  const validData = fc.record(Object.fromEntries(names.map((k) => [k, holdable(spec.fields[k])])), { requiredKeys: required });
  const data = fc.oneof(
    { weight: 20, arbitrary: validData },
    fc.tuple(validData, fc.constantFrom(...required)).map(([d, k]) => {
      const { [k]: _, ...rest } = d;
      return rest;
    }),
    fc.tuple(validData, fc.constantFrom(...names, 'nope'), fc.oneof(anyValue, fc.constant(null))).map(([d, k, v]) => ({ ...d, [k]: v })),
    fc.tuple(validData, forbiddenKey).map(([d, k]) => withKey(d, k, { s: 'x' })),
  );

  // Paths a filter may name, with the operands worth comparing them with; unknown ones too, at every depth.
  const nested = (prefix: string, field: FieldSpec): Array<[string, FieldSpec]> =>
    Object.entries(field.props ?? {}).flatMap(([k, s]) => [[`${prefix}.${k}`, s] as [string, FieldSpec], ...nested(`${prefix}.${k}`, s)]);
  const paths: Array<[string, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>]> = [
    // Ids are never empty, so "" is an exact operand: {"id": ""} matches nothing, {"$gte": ""} everything.
    ['id', fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...IDS, '0') }, fc.constant('')), string],
    ['_version', fc.integer({ min: 1, max: 3 }), number],
    ...names
      .flatMap((k) => [[k, spec.fields[k]] as [string, FieldSpec], ...nested(k, spec.fields[k])])
      .map(([path, s]): [string, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>] => [path, holdable(s), s.items ? holdable(s.items) : string]),
  ];
  const unknownPaths = ['nope', 'id.x', `${names[0]}.x`, ...(spec.fields.meta ? ['meta.nope', 'meta.inner.nope'] : [])];

  // Operands of every kind, so that those a field cannot hold are sent too.
  const condition = ([path, own, element]: [string, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>]) => {
    const value = fc.oneof({ weight: 4, arbitrary: own }, anyValue);
    return conditionOn(path, value, { ordered: value, prefix: string, element: fc.oneof(element, value) });
  };
  const leaf = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(paths[0], ...paths).chain(condition) },
    fc.tuple(fc.constantFrom(...unknownPaths), anyValue).map(([p, v]) => ({ [p]: v })),
    fc.tuple(forbiddenKey, anyValue).map(([k, v]) => withKey({}, k, v)),
  );
  const filter: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', maxDepth: 2, withCrossShrink: true },
      { weight: 4, arbitrary: leaf },
      fc.tuple(leaf, leaf).map(([a, b]) => ({ ...a, ...b })),
      fc.array(tie('node'), { minLength: 1, maxLength: 2 }).map((items) => ({ $and: items })),
      fc.array(tie('node'), { minLength: 1, maxLength: 2 }).map((items) => ({ $or: items })),
      tie('node').map((item) => ({ $not: item })),
    ),
  })).node;
  // Bulk writes: mostly aimed at a few records by id, also any filter and the empty one.
  const target = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...IDS).map((id) => ({ id })) },
    { weight: 2, arbitrary: fc.uniqueArray(fc.constantFrom(...IDS), { minLength: 1, maxLength: 3 }).map((ids) => ({ id: { $in: ids } })) },
    { weight: 4, arbitrary: filter },
    { weight: 1, arbitrary: fc.constant({}) },
  );
  const guard = fc.record(
    {
      allow_all: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, fc.constant(true)),
      max_affected: fc.option(fc.nat(3), { nil: undefined, freq: 4 }),
    },
    { requiredKeys: [] },
  );
  const values = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record(
        Object.fromEntries(
          names.map((k) => [k, fc.oneof({ weight: 4, arbitrary: holdable(spec.fields[k]) }, fc.constant(null), { weight: 1, arbitrary: anyValue })]),
        ),
        { requiredKeys: [] },
      ),
    },
    fc.tuple(fc.constantFrom('nope', '_version', 'id'), anyValue).map(([k, v]) => ({ [k]: v })),
    fc.tuple(forbiddenKey, holdable(spec.fields[names[0]])).map(([k, v]) => withKey({}, k, { [names[0]]: v })),
  );
  // Update operators (issue 32): each on paths of every kind, with operands of every kind, so
  // that those a path cannot take are sent too; sometimes two at once, or beside a plain field.
  const operatorPath = fc.constantFrom(...paths.slice(2).map(([path]) => path), 'nope', 'meta.nope', `${names[0]}.x`);
  const element = fc.oneof(scalar, { weight: 1, arbitrary: anyValue });
  const operand: Record<string, fc.Arbitrary<unknown>> = {
    $set: fc.oneof(scalar, anyValue, fc.constant(null)),
    $unset: fc.constant(''),
    $inc: fc.oneof({ weight: 4, arbitrary: number }, anyValue),
    $min: fc.oneof(number, string, anyValue),
    $max: fc.oneof(number, string, anyValue),
    $push: fc.oneof(
      element,
      fc.array(element, { maxLength: 2 }).map((each) => ({ $each: each })),
    ),
    $addToSet: fc.oneof(
      element,
      fc.array(element, { maxLength: 3 }).map((each) => ({ $each: each })),
    ),
    $pull: element,
    $setOnInsert: fc.oneof(scalar, holdable(spec.fields[names[0]])),
  };
  const oneOperator = fc
    .tuple(fc.constantFrom(...Object.keys(operand)), operatorPath)
    .chain(([op, path]) => operand[op].map((value) => ({ [op]: { [path]: value } })));
  // Mostly operators a path takes, so that most reach the records.
  const specs = names.flatMap((k) => [[k, spec.fields[k]] as [string, FieldSpec], ...nested(k, spec.fields[k])]);
  const fitting = fc.constantFrom(...specs).chain(([path, field]): fc.Arbitrary<Record<string, unknown>> => {
    const ops: fc.Arbitrary<Record<string, unknown>>[] = [holdable(field).map((v) => ({ $set: { [path]: v } })), fc.constant({ $unset: { [path]: '' } })];
    if (field.kinds.includes('number'))
      ops.push(
        number.map((v) => ({ $inc: { [path]: v } })),
        number.map((v) => ({ $max: { [path]: v } })),
      );
    if (field.kinds.includes('string')) ops.push(string.map((v) => ({ $min: { [path]: v } })));
    if (field.items) {
      const item = holdable(field.items);
      ops.push(
        item.map((v) => ({ $push: { [path]: v } })),
        fc.array(item, { maxLength: 2 }).map((each) => ({ $addToSet: { [path]: { $each: each } } })),
        item.map((v) => ({ $pull: { [path]: v } })),
      );
    }
    return fc.oneof(...ops);
  });
  const operators = fc.oneof(
    { weight: 6, arbitrary: fitting },
    { weight: 2, arbitrary: fc.tuple(fitting, fitting).map(([a, b]) => ({ ...b, ...a })) },
    { weight: 2, arbitrary: oneOperator },
    fc.tuple(oneOperator, oneOperator).map(([a, b]) => ({ ...b, ...a })),
    fc.tuple(oneOperator, values).map(([a, b]) => ({ ...b, ...a })),
  );
  // Upserts: mostly by id (with another equality the record is created with), also without one.
  const upsertFilter = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...IDS).map((id) => ({ id })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...IDS), paths[2][1]).map(([id, v]) => ({ id, [paths[2][0]]: v })) },
    fc.constant({ [paths[2][0]]: 'a' }),
  );
  const setOnInsert = fc.record(Object.fromEntries(required.map((k) => [k, holdable(spec.fields[k])])));
  // The required fields on insert, where the operators leave them alone (overlapping paths are refused, as update steps show).
  const touched = (v: Record<string, unknown>) =>
    Object.entries(v).flatMap(([k, inner]) => (k.startsWith('$') && inner && typeof inner === 'object' ? Object.keys(inner) : [k]).map((p) => p.split('.')[0]));
  const upsertValues = fc.tuple(operators, setOnInsert).map(([v, insert]) => {
    const free = Object.fromEntries(Object.entries(insert).filter(([k]) => !touched(v).includes(k)));
    return Object.keys(free).length === 0 ? v : { ...v, $setOnInsert: { ...free, ...(v.$setOnInsert as object) } };
  });
  const orders = ['id', ...spec.indexed].flatMap((f) => [f, `-${f}`]);
  const orderBy = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...orders) }, fc.constant(names.find((k) => !spec.indexed.includes(k))!));
  const limit = fc.constantFrom(1, 2, 1, 3);
  const ids = (n: number) => fc.option(fc.array(fc.constantFrom(...IDS), { minLength: n, maxLength: n }), { nil: undefined });

  const createOne = fc.record({ data, id: fc.option(fc.constantFrom(...IDS), { nil: undefined }) }, { requiredKeys: ['data'] });
  const createBatch = fc
    .array(data, { minLength: 1, maxLength: 3 })
    .chain((batch) => ids(batch.length).map((given) => ({ data: batch, ...(given ? { ids: given } : {}) })));
  const someFilter = fc.option(filter, { nil: undefined, freq: 2 });
  const fields = fc.subarray(['id', ...names, '_version', 'nope', '__proto__'], { minLength: 1, maxLength: 3 });
  const how = fc.constantFrom('same', 'same', 'same', 'other order', 'empty');
  // Concurrent writes: two records and a missing id, written at once by operators and upserts.
  const write = fc.tuple(fc.constantFrom('a', 'b', 'q'), fc.oneof({ weight: 3, arbitrary: fitting }, operators), fc.boolean(), setOnInsert);
  const concurrent = fc.record({
    seeds: fc.tuple(validData, validData),
    writes: fc.array(write, { minLength: 2, maxLength: 5 }).map((list) =>
      list.map(([id, v, upsert, insert]) => ({
        filters: { id },
        values: upsert ? { ...v, $setOnInsert: { ...insert, ...(v.$setOnInsert as object) } } : v,
        upsert,
      })),
    ),
  });
  // Listed by weight: fc.commands picks among its arbitraries evenly.
  const steps = [
    createOne.map((b) => new Step('create', b)),
    createBatch.map((b) => new Step('create', b)),
    createBatch.map((b) => new Step('create', b)),
    fc.tuple(target, values, guard).map(([filters, v, g]) => new Step('update', { filters, values: v, ...g })),
    fc.tuple(target, values, guard).map(([filters, v, g]) => new Step('update', { filters, values: v, ...g })),
    fc.tuple(target, operators, guard).map(([filters, v, g]) => new Step('update', { filters, values: v, ...g })),
    fc.tuple(target, operators, guard).map(([filters, v, g]) => new Step('update', { filters, values: v, ...g })),
    fc.tuple(upsertFilter, upsertValues).map(([filters, v]) => new Step('upsert', { filters, values: v, upsert: true })),
    fc.tuple(target, guard).map(([filters, g]) => new Step('delete', { filters, ...g })),
    fc.tuple(someFilter, orderBy, limit).map(([filters, order_by, l]) => new Step('list', { filters, order_by, limit: l })),
    fc.tuple(orderBy, limit).map(([order_by, l]) => new Step('list', { order_by, limit: l })),
    fc.tuple(fc.nat(2), limit, how).map(([pick, l, h]) => new Step('continue', { pick, limit: l, how: h })),
    fc.tuple(fc.nat(2), limit, how).map(([pick, l, h]) => new Step('continue', { pick, limit: l, how: h })),
    someFilter.map((filters) => new Step('count', { filters })),
    fc.tuple(target, fc.option(fields, { nil: undefined })).map(([filters, f]) => new Step('get_one', { filters, ...(f ? { fields: f } : {}) })),
  ];
  return { steps, concurrent };
}

// ---- steps, and what each must answer ----

interface Real {
  api: Api;
  spec: ModelSpec;
}

const fail = (message: string, reply?: Reply): never => {
  throw new Error(reply ? `${message}\n  answered ${reply.status} ${reply.text.slice(0, 600)}` : message);
};
const same = (got: unknown, want: unknown, what: string, reply: Reply) => {
  if (!sameValue(got, want)) fail(`${what}: expected ${stringifyExactJson(want)}`, reply);
};
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function expectRefusal(reply: Reply, refusal: Refusal): void {
  tally(reply);
  const code = reply.body?.data?.error;
  if (reply.status !== refusal.status || reply.body?.status !== 'error' || !refusal.codes.includes(code)) {
    fail(`expected ${refusal.status} ${refusal.codes.join(' or ')}`, reply);
  }
  if (refusal.ids) same([...reply.body.data.ids].sort(), [...refusal.ids].sort(), 'conflict ids', reply);
}

function expectSuccess(reply: Reply, status: number): Record<string, any> {
  tally(reply);
  if (reply.status !== status || reply.body?.status !== 'success') fail(`expected ${status} success`, reply);
  return reply.body.data;
}

const isRefusal = (x: object): x is Refusal => 'codes' in x;

/** A page as the reference expects it. */
function expectPage(reply: Reply, want: Item[], limit: number): Array<Record<string, any>> {
  const data = expectSuccess(reply, 200);
  const items = data.items as Array<Record<string, any>>;
  same(items, want.slice(0, limit).map(asRecord), 'page', reply);
  if (want.length > limit && data.next_cursor === null) fail('next_cursor null while records remain', reply);
  return items;
}

type Run = (m: RecordModel, real: Real, body: any) => Promise<void>;

const STEPS: Record<string, Run> = {
  async create(m, { api, spec }, body) {
    const expected = m.create(body);
    const reply = await api.post(`/api/db/${spec.name}/create`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const data = expectSuccess(reply, 201);
    const records: Array<Record<string, any>> = Array.isArray(body.data) ? data.records : [data];
    if (records?.length !== expected.entries.length) fail('records answered', reply);
    const seen = new Set<string>();
    records.forEach((record, i) => {
      const { id, _created_at, _updated_at, _version, ...rest } = record;
      const entry = expected.entries[i];
      if (entry.id !== undefined ? id !== entry.id : !ULID.test(id) || m.records.has(id) || seen.has(id)) fail(`id of record ${i}`, reply);
      seen.add(id);
      same(rest, entry.data, `data of record ${i}`, reply);
      if (_version !== 1 || !STAMP.test(_created_at) || _updated_at !== _created_at || _created_at < lastStamp) fail(`system fields of record ${i}`, reply);
    });
    lastStamp = records[0]._created_at;
    m.add(records);
  },

  async update(m, { api, spec }, body) {
    const expected = m.bulk(body, body.values);
    const reply = await api.post(`/api/db/${spec.name}/update`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const n = expected.items.length;
    same(expectSuccess(reply, 200), { updated: n, matched: n, skipped: 0, complete: true, next_cursor: null }, 'update answer', reply);
    m.update(expected.items, expected.changes!);
    restamped = new Set(expected.items.map((i) => i.id as string));
  },

  async upsert(m, { api, spec }, body) {
    const expected = m.upsert(body);
    const reply = await api.post(`/api/db/${spec.name}/update`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    if ('items' in expected) {
      const n = expected.items.length;
      same(expectSuccess(reply, 200), { updated: n, matched: n, skipped: 0, complete: true, next_cursor: null, upserted: false }, 'upsert answer', reply);
      m.update(expected.items, expected.changes);
      restamped = new Set(expected.items.map((i) => i.id as string));
      return;
    }
    same(expectSuccess(reply, 200), { updated: 0, matched: 0, skipped: 0, complete: true, next_cursor: null, upserted: true }, 'upsert answer', reply);
    // The stamps are the service's: taken from what it stored, once they look as a create's do.
    const item = (await storedItems(spec)).find((i) => i.id === expected.create.id);
    if (item?._version !== 1 || !STAMP.test(item._created_at as string) || item._updated_at !== item._created_at) return fail('upserted record', reply);
    m.add([{ id: expected.create.id, ...expected.create.data, _created_at: item._created_at, _updated_at: item._updated_at, _version: 1 }]);
  },

  async delete(m, { api, spec }, body) {
    const expected = m.bulk(body);
    const reply = await api.post(`/api/db/${spec.name}/delete`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const n = expected.items.length;
    same(expectSuccess(reply, 200), { deleted: n, matched: n, skipped: 0, complete: true, next_cursor: null }, 'delete answer', reply);
    m.delete(expected.items);
  },

  async list(m, { api, spec }, body) {
    const expected = m.listed(body);
    const reply = await api.post(`/api/db/${spec.name}/list`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const items = expectPage(reply, m.sorted(expected.node, expected.order), body.limit);
    hold(m, reply, { filters: body.filters, order: expected.order, last: items.length ? m.records.get(items.at(-1)!.id) : undefined });
  },

  /** Goes on with a held cursor, after whatever was written since; or sends it with another order, or an empty one. */
  async continue(m, { api, spec }, { pick, limit, how }) {
    const held = m.cursors.length ? m.cursors[pick % m.cursors.length] : undefined;
    if (!held && how !== 'empty') return;
    const order = how === 'other order' ? (held!.order === 'id' ? '-id' : 'id') : (held?.order ?? 'id');
    const body = { filters: held?.filters, order_by: order, limit, cursor: how === 'empty' ? '' : held!.cursor };
    const reply = await api.post(`/api/db/${spec.name}/list`, body);
    const expected = m.listed(body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    if (how === 'other order') return expectRefusal(reply, { status: 400, codes: ['invalid_cursor'] });
    m.cursors.splice(m.cursors.indexOf(held!), 1);
    const items = expectPage(reply, m.after(held!, expected.node), limit);
    const last = items.at(-1);
    hold(m, reply, { filters: held!.filters, order, last: last ? m.records.get(last.id) : held!.last });
  },

  async count(m, { api, spec }, body) {
    const expected = m.listed(body);
    const reply = await api.post(`/api/db/${spec.name}/count`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const data = expectSuccess(reply, 200);
    same(data.count, m.sorted(expected.node, 'id').length, 'count', reply);
  },

  async get_one(m, { api, spec }, body) {
    const reply = await api.post(`/api/db/${spec.name}/get_one`, body);
    const expected = m.listed(body);
    const fields: string[] | undefined = body.fields;
    const known = ['id', '_created_at', '_updated_at', '_version', ...Object.keys(spec.fields)];
    // A field that is not the model's is unknown_field; "__proto__" may be refused as a forbidden name first.
    const codes = new Set(isRefusal(expected) ? expected.codes : []);
    if (fields?.some((f) => !known.includes(f))) codes.add('unknown_field');
    if (fields?.includes('__proto__')) codes.add('invalid_request');
    if (codes.size > 0) return expectRefusal(reply, { status: 400, codes: [...codes] });
    const first = m.sorted((expected as { node: FilterNode }).node, 'id')[0];
    if (!first) return expectRefusal(reply, { status: 404, codes: ['not_found'] });
    const record = asRecord(first);
    const want = fields ? Object.fromEntries(Object.entries(record).filter(([k]) => k === 'id' || fields.includes(k))) : record;
    same(expectSuccess(reply, 200), want, 'get_one', reply);
  },
};

let lastStamp = '';
/** Records whose _updated_at the last step changed: the stored stamp is taken, if it moved forward. */
let restamped = new Set<string>();

function hold(m: RecordModel, reply: Reply, position: Omit<HeldCursor, 'cursor'>): void {
  const cursor = reply.body.data.next_cursor;
  if (cursor !== null) m.cursors.push({ ...position, cursor });
  if (m.cursors.length > 3) m.cursors.shift();
}

/** What is stored must be what the reference holds, after every step, answered or refused. */
async function expectStored(m: RecordModel, spec: ModelSpec, step: Step): Promise<void> {
  const stored = await storedItems(spec);
  const ids = stored.map((i) => i.id as string).sort();
  const want = [...m.records.keys()].sort();
  if (!sameValue(ids, want)) fail(`after ${step}: stored ids ${JSON.stringify(ids)}, expected ${JSON.stringify(want)}`);
  for (const item of stored) {
    const ref = m.records.get(item.id as string)!;
    if (restamped.has(ref.id as string)) {
      if (!STAMP.test(item._updated_at as string) || (item._updated_at as string) < (ref._updated_at as string))
        fail(`after ${step}: _updated_at of ${ref.id}`);
      ref._updated_at = item._updated_at;
    }
    const got = { id: item.id, d: item.d, _created_at: item._created_at, _updated_at: item._updated_at, _version: item._version };
    if (!sameValue(got, ref)) fail(`after ${step}: stored ${stringifyExactJson(got)}, expected ${stringifyExactJson(ref)}`);
  }
  restamped = new Set();
}

class Step implements fc.AsyncCommand<RecordModel, Real> {
  constructor(
    readonly op: string,
    readonly body: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(m: RecordModel, real: Real): Promise<void> {
    steps += 1;
    outcomes.current = this.op;
    await STEPS[this.op](m, real, this.body);
    await expectStored(m, real.spec, this);
  }
  toString(): string {
    return `${this.op} ${stringifyExactJson(this.body)}`;
  }
}

// ---- the property ----

let steps = 0;
let sequences = 0;
const outcomes = new Outcomes();
const { tally } = outcomes;

test.each(MODELS.map((spec, i) => [spec.name, spec, i] as const))(
  'random sequences of record API calls answer and store what the reference model says (%s)',
  async (_, spec, offset) => {
    const real: Real = { api, spec };
    await fc.assert(
      fc.asyncProperty(fc.commands(arbitraries(spec).steps, { maxCommands: 25, size: 'max' }), async (commands) => {
        sequences += 1;
        await fc.asyncModelRun(async () => {
          await removeAll(spec);
          lastStamp = '';
          return { model: new RecordModel(spec), real };
        }, commands);
      }),
      { ...fuzzed(20, 100 + offset), interruptAfterTimeLimit: fuzzTimeout(240_000) },
    );
  },
  fuzzTimeout(300_000),
);

type Write = { filters: { id: string }; values: Record<string, unknown>; upsert: boolean };

/** Whether applying `order` to the records, one after another, answers each as it was answered and leaves what is stored. */
function serialOrderHolds(spec: ModelSpec, seeds: Item[], order: Array<{ body: Write; data: Record<string, any> }>, stored: Item[]): boolean {
  const m = new RecordModel(spec);
  for (const item of seeds) m.records.set(item.id as string, structuredClone(item));
  for (const { body, data } of order) {
    const expected = body.upsert ? m.upsert(body) : m.bulk(body, body.values);
    if (isRefusal(expected)) return false;
    if ('create' in expected) {
      if (data.upserted !== true) return false;
      m.records.set(expected.create.id, { id: expected.create.id, d: expected.create.data, _version: 1 });
      continue;
    }
    if (data.updated !== expected.items.length || (body.upsert && data.upserted !== false)) return false;
    m.update(expected.items, expected.changes!);
  }
  const want = [...m.records.values()].map((i) => ({ id: i.id, d: i.d, _version: i._version }));
  const got = stored.map((i) => ({ id: i.id, d: i.d, _version: i._version }));
  const byId = (a: { id: unknown }, b: { id: unknown }) => String(a.id).localeCompare(String(b.id));
  return sameValue(want.sort(byId), got.sort(byId));
}

test.each(MODELS.map((spec, i) => [spec.name, spec, i] as const))(
  'concurrent operator updates and upserts end as some serial order of the acknowledged ones (%s)',
  async (_, spec, offset) => {
    await fc.assert(
      fc.asyncProperty(arbitraries(spec).concurrent, async ({ seeds, writes }) => {
        await removeAll(spec);
        const created = await api.post(`/api/db/${spec.name}/create`, { data: seeds, ids: ['a', 'b'] });
        if (created.status !== 201) fail('seeds', created);
        const seeded = await storedItems(spec);
        const replies = await Promise.all(writes.map((body) => api.post(`/api/db/${spec.name}/update`, body)));
        outcomes.current = 'concurrent';
        replies.forEach(tally);
        // Anything but a 2xx or a refusal would say nothing of what was written.
        const odd = replies.find((r) => r.status >= 500 || (r.status === 409 && r.body?.data?.error === 'record_busy'));
        if (odd) fail('a concurrent write neither applied nor refused', odd);
        const acknowledged = writes.flatMap((body, i) => (replies[i].status === 200 ? [{ body, data: replies[i].body.data }] : []));
        const stored = await storedItems(spec);
        for (const order of permutations(acknowledged)) if (serialOrderHolds(spec, seeded as Item[], order, stored as Item[])) return;
        fail(`no serial order of the ${acknowledged.length} acknowledged writes gives what is stored: ${stringifyExactJson(stored.map((i) => i.d))}`);
      }),
      { ...fuzzed(15, 200 + offset), interruptAfterTimeLimit: fuzzTimeout(120_000) },
    );
  },
  fuzzTimeout(180_000),
);

afterAll(() =>
  console.log(
    `record model: ${sequences} sequences, ${steps} steps on ${process.env.RG_TEST_ENGINE}${againstArtifacts() ? ' (artifact)' : ''}\n` + outcomes.summary(),
  ),
);
