import fc from 'fast-check';
import * as z from 'zod';
import { stringifyExactJson } from '../../shared/json/exact-json';
import { defineModel } from '../../shared/models/define';
import { recordLayout } from '../../shared/store/layout/index-build';
import { reaction } from '../../shared/models/reaction';
import type { FilterNode } from '../../shared/store/filter/ast';
import type { Item } from '../support/filter-reference';
import { sameValue } from '../support/filter-reference';
import { againstArtifacts, localOnly, useApi, type Api, type Reply } from '../support/api';
import { conditionOn } from '../support/filter-arbitraries';
import { fuzzed, fuzzTimeout } from '../support/fuzz';
import { measureMs, secondsFor } from '../support/machine-speed';
import {
  asRecord,
  type BulkRequest,
  commitTransaction,
  RecordModel,
  transaction,
  type FieldSpec,
  type HeldCursor,
  type IfMatch,
  type ModelSpec,
  type Refusal,
  type TransactionOp,
} from '../support/record-model';
import { Outcomes } from '../support/outcomes';
import { removeAll, storedItems } from '../support/stored';
import { utf8Order } from '../../shared/store/utf8-order';

/**
 * A stateful, model-based test of the whole record API (issue 19): random sequences of create
 * (one and batch, ids given and made, conflicts), update (plain values and the operators of issue
 * 32), upsert, delete, list with paging interleaved
 * with writes (a cursor held across them and continued later), count and get_one, sent over HTTP
 * and held step by step to the reference of test/support/record-model.ts: status, error code,
 * body, and what is stored afterwards. Run with random seeds by `npm run fuzz -- model`.
 */

// Array, nested, optional, mixed-kind, indexed and sharded fields, as in the issue's findings.
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
// A second model for transactions across models, with a bound an update may break (a 422).
const ACCOUNT = defineModel({
  name: 'model_account',
  description: 'model-based test model with a bounded balance',
  schema: z.strictObject({ owner: z.string(), balance: z.number().min(0), note: z.string().optional() }),
  indexed: ['owner'],
});

// The bundles in cdk.out serve only the models that ship; there the test runs on reaction.
jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, ...[...THROWAWAY, ACCOUNT].map((m) => m.name)],
    findModel: (name: string) => [...THROWAWAY, ACCOUNT].find((m) => m.name === name) ?? actual.findModel(name),
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
const ACCOUNT_SPEC: ModelSpec = {
  name: ACCOUNT.name,
  shards: 1,
  fields: { owner: { kinds: ['string'], required: true }, balance: { kinds: ['number'], required: true, min: 0 }, note: { kinds: ['string'] } },
  indexed: ['owner'],
};
/** The model a model's transactions write beside it: the bundles serve none of this file's models, so there reaction's own. */
const companionOf = (spec: ModelSpec) => (againstArtifacts() ? spec : ACCOUNT_SPEC);
const MODELS: ModelSpec[] = againstArtifacts()
  ? [REACTION]
  : [...THROWAWAY.map((m) => ({ name: m.name, shards: m.shards, fields: FIELDS, indexed: [...m.indexed] })), REACTION];

const api = useApi();
// As `npm start` and every deploy do before serving: an update's one atomic write, and a transaction's, need the schema recorded.
beforeAll(async () => {
  if (!againstArtifacts()) for (const model of [...THROWAWAY, ACCOUNT, reaction]) await recordLayout(model);
});

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
      if (kind === 'number') return spec.min === undefined ? number : fc.constantFrom(...NUMBERS.filter((v) => v >= spec.min!));
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

/** What a model's transaction operations are made of. */
interface Pieces {
  data: fc.Arbitrary<Record<string, unknown>>;
  validData: fc.Arbitrary<Record<string, unknown>>;
  fitting: fc.Arbitrary<Record<string, unknown>>;
  transfer: fc.Arbitrary<Record<string, unknown>>;
  leaf: fc.Arbitrary<Record<string, unknown>>;
  write: fc.Arbitrary<Record<string, unknown>>;
  setOnInsert: fc.Arbitrary<Record<string, unknown>>;
  /** A path with the values worth comparing it with by equality. */
  equality: [string, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>];
}

/** The records batches write: two a sequence often makes, and one it never does. */
const BATCH_IDS = ['a', 'b', 'zz'];
/** The If-Match a conditional write sends: the tag read before its batch, one of an earlier state, *, a list holding both, or none. */
type TagChoice = 'current' | 'stale' | 'star' | 'stale_then_current' | 'none';
/** One write of a batch, on the sequence's model (a transaction on any). */
type Call =
  | { kind: 'update' | 'upsert' | 'delete'; body: Record<string, any>; tag?: TagChoice }
  | { kind: 'create'; body: Record<string, any>; onlyIfAbsent: boolean }
  | { kind: 'transaction'; operations: TransactionOp[] };

function arbitraries(spec: ModelSpec, others: Record<string, Pieces> = {}) {
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
  // Transfers: whole amounts in and out of a number field, which a bound may refuse.
  const numberFields = names.filter((k) => spec.fields[k].kinds.includes('number'));
  const transfer = fc.tuple(fc.constantFrom(...numberFields), fc.constantFrom(-7, -1, 1, 2)).map(([k, by]) => ({ $inc: { [k]: by } }));
  const own: Pieces = {
    data,
    validData,
    fitting,
    transfer,
    leaf,
    write: fc.oneof({ weight: 3, arbitrary: fitting }, operators),
    setOnInsert,
    equality: paths[2],
  };
  const pieces = { [spec.name]: own, ...others };
  // Batches: writes sent at once (one alone is a plain sequential step), to two records and a missing id.
  const id = fc.constantFrom(...BATCH_IDS);
  const upsertOrUpdate = fc.tuple(id, own.write, fc.boolean(), setOnInsert).map(
    ([to, v, upsert, insert]): Call => ({
      kind: upsert ? 'upsert' : 'update',
      body: { filters: { id: to }, values: upsert ? { ...v, $setOnInsert: { ...insert, ...(v.$setOnInsert as object) } } : v, ...(upsert ? { upsert } : {}) },
    }),
  );
  // Conditional writes of one record: most often with the tag read before the batch, so that writers race for it.
  const tag = fc.constantFrom<TagChoice>('current', 'current', 'stale', 'star', 'stale_then_current', 'none');
  // Most often "a", so that writers in one batch race for its tag.
  const raced = fc.constantFrom('a', 'a', 'a', 'b', 'zz');
  const byId = fc.oneof(
    { weight: 4, arbitrary: raced.map((to): Record<string, unknown> => ({ id: to })) },
    fc.tuple(raced, paths[2][1]).map(([to, v]) => ({ id: to, [paths[2][0]]: v })),
    raced.map((to) => ({ id: { $in: [to] } })),
  );
  const conditional = fc
    .tuple(fc.constantFrom('update', 'delete'), byId, fitting, tag)
    .map(([kind, filters, v, t]): Call => ({ kind: kind as 'update' | 'delete', body: kind === 'update' ? { filters, values: v } : { filters }, tag: t }));
  const createIfAbsent = fc.tuple(id, data, fc.boolean()).map(([to, d, onlyIfAbsent]): Call => ({ kind: 'create', body: { id: to, data: d }, onlyIfAbsent }));
  // A create most often of an id no batch seeds, the others most often of a seeded one, so that many transactions apply.
  const operationOn = ([model, p]: [string, Pieces]): fc.Arbitrary<TransactionOp> => {
    const to = fc.constantFrom('a', 'b', 'a', 'b', 'zz');
    const fresh = fc.constantFrom('c', 'zz');
    const filters = fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: p.equality[1].map((v): Record<string, unknown> => ({ [p.equality[0]]: v })) },
      fc.constant({}),
      p.leaf,
    );
    return fc.oneof(
      fc.tuple(fresh, p.data).map(([id, d]): TransactionOp => ({ op: 'create', model, id, data: d })),
      {
        weight: 3,
        arbitrary: fc
          .tuple(to, fc.oneof(p.fitting, p.transfer), filters)
          .map(([id, values, f]): TransactionOp => ({ op: 'update', model, id, values, ...(f ? { filters: f } : {}) })),
      },
      fc.tuple(to, filters).map(([id, f]): TransactionOp => ({ op: 'delete', model, id, ...(f ? { filters: f } : {}) })),
      fc.tuple(to, filters).map(([id, f]): TransactionOp => ({ op: 'check', model, id, filters: f ?? {} })),
    );
  };
  // Operations on records of either model, now and then two on one record (a 400).
  const transaction = fc
    .array(fc.constantFrom(...Object.entries(pieces)), { minLength: 1, maxLength: 3 })
    .chain((targets) => fc.tuple(...targets.map(operationOn)))
    .map((operations): Call => ({ kind: 'transaction', operations }));
  const call = fc.oneof(upsertOrUpdate, { weight: 2, arbitrary: conditional }, createIfAbsent, { weight: 2, arbitrary: transaction });
  // A batch finds its two records stored (made first where missing): a client's races are on records that exist.
  const batch = (least: number, most: number) =>
    fc
      .tuple(
        fc.array(call, { minLength: least, maxLength: most }),
        fc.record(Object.fromEntries(Object.entries(pieces).map(([name, p]) => [name, fc.tuple(p.validData, p.validData)]))),
      )
      .map(([calls, seeds]) => new Step('batch', { calls, seeds }));
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
    batch(1, 1),
    batch(1, 1),
    batch(2, 4),
    batch(2, 4),
  ];
  return { steps, own };
}

// ---- steps, and what each must answer ----

interface Real {
  api: Api;
  spec: ModelSpec;
}

/** The sequence's model and every model its transactions write (the companion), by name. */
interface World {
  main: RecordModel;
  models: Record<string, RecordModel>;
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

type Run = (w: World, real: Real, body: any) => Promise<void>;

const STEPS: Record<string, Run> = {
  async create({ main: m }, { api, spec }, body) {
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

  async update({ main: m }, { api, spec }, body) {
    const expected = m.bulk(body, body.values);
    const reply = await api.post(`/api/db/${spec.name}/update`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const n = expected.items.length;
    same(expectSuccess(reply, 200), { updated: n, matched: n, skipped: 0, complete: true, next_cursor: null }, 'update answer', reply);
    m.update(expected.items, expected.changes!);
    restamped = new Set(expected.items.map((i) => `${spec.name}/${i.id}`));
  },

  async upsert({ main: m }, { api, spec }, body) {
    const expected = m.upsert(body);
    const reply = await api.post(`/api/db/${spec.name}/update`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    if ('items' in expected) {
      const n = expected.items.length;
      same(expectSuccess(reply, 200), { updated: n, matched: n, skipped: 0, complete: true, next_cursor: null, upserted: false }, 'upsert answer', reply);
      m.update(expected.items, expected.changes);
      restamped = new Set(expected.items.map((i) => `${spec.name}/${i.id}`));
      return;
    }
    same(expectSuccess(reply, 200), { updated: 0, matched: 0, skipped: 0, complete: true, next_cursor: null, upserted: true }, 'upsert answer', reply);
    // The stamps are the service's: taken from what it stored, once they look as a create's do.
    const item = (await storedItems(spec)).find((i) => i.id === expected.create.id);
    if (item?._version !== 1 || !STAMP.test(item._created_at as string) || item._updated_at !== item._created_at) return fail('upserted record', reply);
    m.add([{ id: expected.create.id, ...expected.create.data, _created_at: item._created_at, _updated_at: item._updated_at, _version: 1 }]);
  },

  async delete({ main: m }, { api, spec }, body) {
    const expected = m.bulk(body);
    const reply = await api.post(`/api/db/${spec.name}/delete`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const n = expected.items.length;
    same(expectSuccess(reply, 200), { deleted: n, matched: n, skipped: 0, complete: true, next_cursor: null }, 'delete answer', reply);
    m.delete(expected.items);
  },

  async list({ main: m }, { api, spec }, body) {
    const expected = m.listed(body);
    const reply = await api.post(`/api/db/${spec.name}/list`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const items = expectPage(reply, m.sorted(expected.node, expected.order), body.limit);
    hold(m, reply, { filters: body.filters, order: expected.order, last: items.length ? m.records.get(items.at(-1)!.id) : undefined });
  },

  /** Goes on with a held cursor, after whatever was written since; or sends it with another order, or an empty one. */
  async continue({ main: m }, { api, spec }, { pick, limit, how }) {
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

  async count({ main: m }, { api, spec }, body) {
    const expected = m.listed(body);
    const reply = await api.post(`/api/db/${spec.name}/count`, body);
    if (isRefusal(expected)) return expectRefusal(reply, expected);
    const data = expectSuccess(reply, 200);
    same(data.count, m.sorted(expected.node, 'id').length, 'count', reply);
  },

  async get_one({ main: m }, { api, spec }, body) {
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
    const problem = m.tagAnswered(first.id as string, reply.headers.get('etag'));
    if (problem) fail(problem, reply);
  },

  /**
   * Writes sent at once (one alone: a plain step, held to its exact answer): the acknowledged ones,
   * applied to the reference in some serial order, answer as they were answered and leave what is
   * stored; each refused one is refused as the reference refuses it at some point of that order,
   * and wrote nothing. Conditional writes send the tags read just before.
   */
  async batch(w, { api, spec }, { calls, seeds }: { calls: Call[]; seeds?: Record<string, Array<Record<string, unknown>>> }) {
    for (const [name, data] of Object.entries(seeds ?? {})) {
      for (const [i, id] of ['a', 'b'].entries()) {
        if (w.models[name].records.has(id)) continue;
        const made = await api.post(`/api/db/${name}/create`, { id, data: data[i] });
        w.models[name].add([expectSuccess(made, 201)]);
      }
    }
    if (calls.some((c) => (c.kind === 'update' || c.kind === 'delete') && c.tag !== 'none')) {
      for (const id of BATCH_IDS.filter((i) => w.main.records.has(i) && !w.main.tags.has(i))) {
        const reply = await api.post(`/api/db/${spec.name}/get_one`, { filters: { id } });
        const problem = w.main.tagAnswered(id, reply.headers.get('etag'));
        if (problem) fail(problem, reply);
      }
    }
    const holders = calls.filter((c) => 'tag' in c && (c.tag === 'current' || c.tag === 'stale_then_current') && w.main.records.has(idOf(c)));
    if (holders.length >= 2 && new Set(holders.map((c) => idOf(c as Call & { body: Record<string, any> }))).size < holders.length) contested += 1;
    const sent = await Promise.all(
      calls.map(async (call): Promise<Sent> => {
        const ifMatch = ifMatchOf(w.main, call);
        return { call, ifMatch, reply: await send(api, spec, call, ifMatch) };
      }),
    );
    for (const { call, reply } of sent) {
      outcomes.current = `${calls.length > 1 ? 'batch ' : ''}${call.kind}${'tag' in call && call.tag !== 'none' ? ` if-match ${call.tag}` : ''}`;
      tally(reply);
    }
    const odd = sent.find((s) => s.reply.status >= 500 || s.reply.body?.data?.error === 'record_busy');
    if (odd) fail('a write neither applied nor refused', odd.reply);
    const stored = new Map(await Promise.all(Object.values(w.models).map(async (m) => [m.spec.name, await storedItems(m.spec)] as const)));
    const acknowledged = sent.filter((s) => s.reply.status < 300);
    const refused = sent.filter((s) => s.reply.status >= 300);
    const alone = calls.length === 1;
    for (const order of permutations(acknowledged)) {
      const states = [cloneWorld(w)];
      const misfit = order.some((s) => {
        const next = cloneWorld(states.at(-1)!);
        states.push(next);
        return answerProblem(next, s, alone) !== undefined;
      });
      if (misfit || !holdsStored(states.at(-1)!, stored)) continue;
      if (!refused.every((s) => states.some((state) => answerProblem(cloneWorld(state), s, alone) === undefined))) continue;
      adopt(w, states.at(-1)!, stored);
      const { call, reply } = sent[0];
      // A 412 alone tells the record's tag as it is now.
      if (alone && reply.status === 412 && call.kind !== 'create' && call.kind !== 'transaction' && reply.body.data.etag !== null) {
        const problem = w.main.tagAnswered(idOf(call), reply.body.data.etag);
        if (problem) fail(problem, reply);
      }
      return;
    }
    if (alone) fail(answerProblem(cloneWorld(w), sent[0], true) ?? 'the answer is right, what is stored is not', sent[0].reply);
    fail(
      `no serial order of the acknowledged writes answers as they were answered and stores what is stored:\n  ${sent
        .map((s) => `${s.reply.status} ${s.reply.text.slice(0, 300)}`)
        .join('\n  ')}\n  stored ${stringifyExactJson([...stored].map(([name, items]) => [name, items.map((i) => [i.id, i.d, i._version])]))}`,
    );
  },
};

type Sent = { call: Call; ifMatch?: IfMatch; reply: Reply };

function* permutations<T>(list: T[]): Generator<T[]> {
  if (list.length <= 1) yield list;
  else for (const [i, first] of list.entries()) for (const rest of permutations([...list.slice(0, i), ...list.slice(i + 1)])) yield [first, ...rest];
}

const idOf = (call: Call & { body: Record<string, any> }): string =>
  typeof call.body.filters.id === 'string' ? call.body.filters.id : call.body.filters.id.$in[0];

/** The If-Match a conditional write sends, from the tags the reference knows before its batch. */
function ifMatchOf(m: RecordModel, call: Call): IfMatch | undefined {
  if ((call.kind !== 'update' && call.kind !== 'delete') || call.tag === undefined || call.tag === 'none') return undefined;
  const now = m.tags.get(idOf(call));
  // A record not stored has no tag: a made-up one stands for what a client read before it was deleted.
  const current = now ?? '"1-AAAAAAAAAAAAAAAA"';
  const stale = (m.seenTags.get(idOf(call)) ?? []).findLast((t) => t !== now) ?? '"0-AAAAAAAAAAAAAAAA"';
  return { current: [current], stale: [stale], star: '*' as const, stale_then_current: [stale, current] }[call.tag];
}

function send(api: Api, spec: ModelSpec, call: Call, ifMatch: IfMatch | undefined): Promise<Reply> {
  if (call.kind === 'transaction') return api.post('/api/db/transaction', { operations: call.operations });
  const headers: Record<string, string> = {};
  if (ifMatch !== undefined) headers['if-match'] = ifMatch === '*' ? '*' : ifMatch.join(', ');
  if (call.kind === 'create' && call.onlyIfAbsent) headers['if-none-match'] = '*';
  return api.post(`/api/db/${spec.name}/${call.kind === 'upsert' ? 'update' : call.kind}`, call.body, headers);
}

function cloneWorld(w: World): World {
  const models = Object.fromEntries(Object.entries(w.models).map(([name, m]) => [name, m.clone()]));
  return { main: models[w.main.spec.name], models };
}

const core = (items: Item[]) => items.map((i) => ({ id: i.id, d: i.d, _version: i._version })).sort((a, b) => utf8Order(a.id as string, b.id as string));

function holdsStored(w: World, stored: Map<string, Item[]>): boolean {
  return Object.values(w.models).every((m) => sameValue(core([...m.records.values()]), core(stored.get(m.spec.name)!)));
}

/** The world becomes `end`, with the stamps the service gave. */
function adopt(w: World, end: World, stored: Map<string, Item[]>): void {
  for (const [name, m] of Object.entries(w.models)) {
    const from = end.models[name];
    const stamps = new Map(stored.get(name)!.map((i) => [i.id as string, i]));
    m.records.clear();
    for (const [id, item] of from.records) m.records.set(id, { ...item, _created_at: stamps.get(id)!._created_at, _updated_at: stamps.get(id)!._updated_at });
    m.tags.clear();
    for (const [id, tag] of from.tags) m.tags.set(id, tag);
  }
}

/** Whether a refusal is the one answered: status, code, and what it names. */
function refusalFits(r: Refusal, reply: Reply): boolean {
  const data = reply.body?.data ?? {};
  const details: Array<{ path: string }> = data.details ?? [];
  if (reply.status !== r.status || reply.body?.status !== 'error' || !r.codes.includes(data.error)) return false;
  if (r.ids && !sameValue([...(data.ids ?? [])].sort(), [...r.ids].sort())) return false;
  if (r.reason !== undefined && (data.reason !== r.reason || data.operation !== r.operation)) return false;
  if (r.reason === undefined && r.operation !== undefined && details[0]?.path !== `operations.${r.operation}`) return false;
  if (r.operations && !(details.length > 0 && details.every((d) => r.operations!.some((i) => d.path.startsWith(`operations.${i}.`))))) return false;
  if (r.etag !== undefined) {
    if (r.etag === 'new' ? typeof data.etag !== 'string' : data.etag !== r.etag) return false;
    if ((reply.headers.get('etag') ?? null) !== data.etag) return false;
  }
  return true;
}

const describe412 = (r: Refusal) =>
  `${r.status} ${r.codes.join('|')}${r.operation === undefined ? '' : ` at ${r.operation}`}${r.reason ? ` ${r.reason}` : ''}${r.etag === undefined ? '' : ` etag ${r.etag}`}`;

/** What is wrong with a write's answer in world `w`, which then holds what it wrote (undefined: nothing is wrong). */
function answerProblem(w: World, { call, ifMatch, reply }: Sent, alone: boolean): string | undefined {
  const m = w.main;
  const refused = (refusals: Refusal[]) => (refusals.some((r) => refusalFits(r, reply)) ? undefined : `expected ${refusals.map(describe412).join(' or ')}`);
  const data = reply.body?.data;
  const answered = (status: number) => reply.status === status && reply.body?.status === 'success';
  switch (call.kind) {
    case 'create': {
      const expected = m.create(call.body as { data: unknown; id: string }, call.onlyIfAbsent);
      if (isRefusal(expected)) return refused([expected]);
      const { id, _created_at, _updated_at, _version, ...rest } = answered(201) ? data : {};
      if (id !== call.body.id || _version !== 1 || !sameValue(rest, expected.entries[0].data)) return 'expected the record created';
      m.add([data]);
      return undefined;
    }
    case 'update':
    case 'delete': {
      const expected = m.bulk(call.body as BulkRequest, call.kind === 'update' ? call.body.values : undefined, ifMatch);
      if (isRefusal(expected)) return refused([expected]);
      const n = expected.items.length;
      // A record another write of the batch changed or deleted after this one read it is skipped, not written.
      const skipped = alone ? 0 : data?.skipped;
      if (!answered(200) || data[`${call.kind}d`] !== n || data.matched - skipped !== n || data.skipped !== skipped) return `expected ${n} ${call.kind}d`;
      if (call.kind === 'update') m.update(expected.items, expected.changes!);
      else m.delete(expected.items);
      return undefined;
    }
    case 'upsert': {
      const expected = m.upsert(call.body as BulkRequest & { values: Record<string, unknown> });
      if (isRefusal(expected)) return refused([expected]);
      if ('create' in expected) {
        if (!answered(200) || data.upserted !== true) return 'expected the record upserted';
        m.add([{ id: expected.create.id, ...expected.create.data, _version: 1 }]);
        return undefined;
      }
      const skipped = alone ? 0 : data?.skipped;
      if (!answered(200) || data.upserted !== false || data.updated !== expected.items.length || data.skipped !== skipped)
        return `expected ${expected.items.length} updated`;
      m.update(expected.items, expected.changes);
      return undefined;
    }
    case 'transaction': {
      const expected = transaction(w.models, call.operations);
      if ('refusals' in expected) return refused(expected.refusals);
      const results: Array<Record<string, any>> = answered(200) ? data.results : [];
      if (results.length !== expected.results.length) return 'expected the transaction applied';
      for (const [i, want] of expected.results.entries()) {
        const got = results[i];
        if (!('record' in want)) {
          if (!sameValue(got, want)) return `expected result ${i}: ${stringifyExactJson(want)}`;
          continue;
        }
        const { _created_at, _updated_at, ...record } = got.record ?? {};
        const { _created_at: createdBefore, ...wanted } = want.record;
        // An update's record is read after the transaction: in a batch, another write may show in it.
        const exact = want.op === 'create' || alone;
        if (
          got.op !== want.op ||
          !sameValue(exact ? record : record.id, exact ? wanted : wanted.id) ||
          (createdBefore && exact && _created_at !== createdBefore)
        )
          return `expected result ${i}: ${stringifyExactJson(want)}`;
      }
      commitTransaction(
        w.models,
        call.operations,
        expected.results.map((want, i) =>
          'record' in want ? { record: { _created_at: results[i].record._created_at, ...want.record, _updated_at: results[i].record._updated_at } } : {},
        ),
      );
      return undefined;
    }
  }
}

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
  const name = spec.name;
  const ids = stored.map((i) => i.id as string).sort();
  const want = [...m.records.keys()].sort();
  if (!sameValue(ids, want)) fail(`after ${step}: stored ids ${JSON.stringify(ids)}, expected ${JSON.stringify(want)}`);
  for (const item of stored) {
    const ref = m.records.get(item.id as string)!;
    if (restamped.has(`${name}/${ref.id}`)) {
      if (!STAMP.test(item._updated_at as string) || (item._updated_at as string) < (ref._updated_at as string))
        fail(`after ${step}: _updated_at of ${ref.id}`);
      ref._updated_at = item._updated_at;
    }
    const got = { id: item.id, d: item.d, _created_at: item._created_at, _updated_at: item._updated_at, _version: item._version };
    if (!sameValue(got, ref)) fail(`after ${step}: stored ${stringifyExactJson(got)}, expected ${stringifyExactJson(ref)}`);
  }
}

class Step implements fc.AsyncCommand<World, Real> {
  constructor(
    readonly op: string,
    readonly body: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(w: World, real: Real): Promise<void> {
    steps += 1;
    outcomes.current = this.op;
    await STEPS[this.op](w, real, this.body);
    // Only a batch's transactions write the companion.
    for (const m of this.op === 'batch' ? Object.values(w.models) : [w.main]) await expectStored(m, m.spec, this);
    restamped = new Set();
  }
  toString(): string {
    return `${this.op} ${stringifyExactJson(this.body)}`;
  }
}

// ---- the property ----

let steps = 0;
let sequences = 0;
/** Batches where two writers held one record's current tag at once: the race If-Match is for. */
let contested = 0;
const outcomes = new Outcomes();
const { tally } = outcomes;

test.each(MODELS.map((spec, i) => [spec.name, spec, i] as const))(
  'random sequences of record API calls answer and store what the reference model says (%s)',
  async (_, spec, offset) => {
    const real: Real = { api, spec };
    // Up to four writes at once on two records: each function may wait for the others' turns.
    const one = await measureMs(() => api.post('/api/db/transaction', { operations: [{ op: 'check', model: spec.name, id: 'none', filters: {} }] }));
    api.giveTime(secondsFor(4 * one));
    const companion = companionOf(spec);
    const others = companion === spec ? {} : { [companion.name]: arbitraries(companion).own };
    await fc.assert(
      fc.asyncProperty(fc.commands(arbitraries(spec, others).steps, { maxCommands: 25, size: 'max' }), async (commands) => {
        sequences += 1;
        await fc.asyncModelRun(async () => {
          const specs = [...new Set([spec, companion])];
          for (const s of specs) await removeAll(s);
          lastStamp = '';
          const models = Object.fromEntries(specs.map((s) => [s.name, new RecordModel(s)]));
          return { model: { main: models[spec.name], models }, real };
        }, commands);
      }),
      { ...fuzzed(14, 100 + offset), interruptAfterTimeLimit: fuzzTimeout(240_000) },
    );
  },
  fuzzTimeout(300_000),
);

// The bundles run reaction alone, too few batches to count on a race.
localOnly('the batches reached the races and answers they are for', () => {
  const reached = (key: string) => [...outcomes.keys()].some((k) => k.startsWith(key));
  expect(contested).toBeGreaterThanOrEqual(3);
  for (const key of [
    'batch update if-match current 200',
    'batch update if-match current 412',
    'batch transaction 200',
    'batch transaction 409',
    'batch create 412',
  ])
    expect([key, reached(key)]).toEqual([key, true]);
});

afterAll(() =>
  console.log(
    `record model: ${sequences} sequences, ${steps} steps on ${process.env.RG_TEST_ENGINE}${againstArtifacts() ? ' (artifact)' : ''}\n` + outcomes.summary(),
  ),
);
