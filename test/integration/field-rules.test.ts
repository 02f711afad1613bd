import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import * as z from 'zod';
import { handler as count } from '../../functions/count/handler';
import { handler as create } from '../../functions/create/handler';
import { handler as remove } from '../../functions/delete/handler';
import { handler as getOne } from '../../functions/get_one/handler';
import { handler as list } from '../../functions/list/handler';
import { handler as models } from '../../functions/models/handler';
import { handler as transaction } from '../../functions/transaction/handler';
import { handler as update } from '../../functions/update/handler';
import { lambdaContext, toEvent } from '../../scripts/local/event';
import { parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';
import { ROUTES, routeKey } from '../../shared/manifest/routes';
import { defineModel } from '../../shared/models/define';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { createRecords } from '../../shared/store/actions/create/create';
import { recordLayout } from '../../shared/store/layout/index-build';
import { DATA_ATTRIBUTE } from '../../shared/store/table';
import { tableSnapshot } from '../support/table-snapshot';

// Field rules (docs/security.md, Field rules) on a model this file adds, through the record
// functions' handlers with the caller API Gateway's JWT authorizer hands them: its scopes and
// its claims (shared/auth/authorize.ts). `cost` and `internal` are hidden from callers without
// admin, `audit_note` from callers without an `auditor` claim; `status` is set by the service only.
const ledger = defineModel({
  name: 'ledger',
  description: 'entries with fields some callers may not see or set',
  schema: z.strictObject({
    title: z.string(),
    cost: z.number().optional(),
    internal: z.strictObject({ score: z.number() }).optional(),
    audit_note: z.string().optional(),
    status: z.string().default('new'),
    tags: z.array(z.string()).optional(),
  }),
  indexed: ['title', 'cost'],
  fields: {
    cost: { visibleTo: { scope: 'admin' } },
    internal: { visibleTo: { scope: 'admin' } },
    audit_note: { visibleTo: { claim: 'auditor' } },
    status: { readOnly: true },
  },
});

// Field rules beside a row rule: each caller reaches its own memos, and sees their score only with admin.
const memo = defineModel({
  name: 'memo',
  description: 'memos kept per owner, with a score only admins see',
  // The owner is required: the service fills it in from the caller's subject.
  schema: z.strictObject({ text: z.string(), owner: z.string(), score: z.number().optional() }),
  owner: 'owner',
  fields: { score: { visibleTo: { scope: 'admin' } } },
});

jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    // The handlers load the catalog before this file's model is made: the name is spelt out, the model looked up late.
    MODEL_NAMES: [...actual.MODEL_NAMES, 'ledger', 'memo'],
    findModel: (name: string) => (({ ledger, memo }) as Record<string, unknown>)[name] ?? actual.findModel(name),
  };
});
jest.mock('../../shared/models/every-model', () => {
  const actual = jest.requireActual('../../shared/models/every-model');
  return { allModels: () => [...actual.allModels(), ledger, memo] };
});

beforeAll(async () => {
  for (const model of [ledger, memo]) await recordLayout(model);
});

type Fn = 'create' | 'get_one' | 'list' | 'count' | 'update' | 'delete' | 'transaction' | 'models';
const HANDLERS = { create, get_one: getOne, list, count, update, delete: remove, transaction, models } as const;

interface Caller {
  sub: string;
  scopes: string[];
  claims?: Record<string, string>;
}
const ADMIN: Caller = { sub: 'ada', scopes: ['read', 'write', 'admin'] };
const WRITER: Caller = { sub: 'wes', scopes: ['read', 'write'] };
const AUDITOR: Caller = { sub: 'aud', scopes: ['read', 'write'], claims: { auditor: 'yes' } };
const CALLERS = [ADMIN, WRITER, AUDITOR, { ...ADMIN, sub: 'ada-auditor', claims: { auditor: 'yes' } }];

/** What a caller may not see of ledger: what the model's rules say, written out again. */
const hiddenFrom = (caller: Caller): string[] => [
  ...(caller.scopes.includes('admin') ? [] : ['cost', 'internal']),
  ...(caller.claims?.auditor ? [] : ['audit_note']),
];

interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** One request to a record function, as API Gateway hands it over once its JWT authorizer has verified the token. */
async function call(fn: Fn, body: unknown, caller: Caller, model = ledger.name): Promise<Reply> {
  const route = ROUTES.find((r) => r.function === fn)!;
  const path = route.path.replace('{model_name}', model);
  const text = body === undefined ? '' : stringifyExactJson(body);
  const event: APIGatewayProxyEventV2 = toEvent(
    {
      method: route.method,
      rawPath: path,
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      httpVersion: '1.1',
      sourceIp: '127.0.0.1',
      port: 3000,
      scheme: 'http',
    },
    Buffer.from(text),
    routeKey(route),
    route.path.includes('{model_name}') ? { model_name: model } : {},
  );
  const claims = { iss: 'https://issuer.example', sub: caller.sub, ...caller.claims };
  (event.requestContext as unknown as Record<string, unknown>).authorizer = { jwt: { claims, scopes: caller.scopes } };
  const result = (await HANDLERS[fn](event, lambdaContext(fn, randomUUID()))) as APIGatewayProxyStructuredResultV2;
  const answer = String(result.body ?? '');
  return { status: result.statusCode ?? 0, body: answer ? parseExactJson(answer) : undefined, text: answer };
}

let n = 0;
const fresh = (prefix: string) => `${prefix}-${++n}`;

/** A record as the service writes it (no caller): every field set, the read-only one too. */
async function seeded(id = fresh('seed')) {
  const data = { title: `t-${id}`, cost: 42, internal: { score: 7 }, audit_note: `SECRET-${id}`, status: 'approved', tags: ['a'] };
  await createRecords(ledger, { records: [{ id, data }] });
  return { id, data };
}

/** Every key of every object in an answer, at any depth. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysIn(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysIn(v, into);
    }
  }
  return into;
}

/** The answer to `body` with each field of `names` spelt as one no model has, spelt back: what it would be had those fields not existed. */
async function asIfAbsent(fn: Fn, body: unknown, caller: Caller, ...names: string[]): Promise<Reply> {
  const ghost = (name: string) => `nosuch_${name}`;
  const swapped = JSON.parse(names.reduce((text, name) => text.replaceAll(name, ghost(name)), JSON.stringify(body)));
  const reply = await call(fn, swapped, caller);
  return { ...reply, body: JSON.parse(names.reduce((text, name) => text.replaceAll(ghost(name), name), reply.text)) };
}

describe('declaring field rules', () => {
  const base = { name: 'bad', description: 'x', indexed: [] as never[] };
  test('a read-only or hidden field a caller could never create a record without is refused, and a hidden field needs a strict schema', () => {
    expect(() => defineModel({ ...base, schema: z.strictObject({ a: z.string(), s: z.string() }), fields: { s: { readOnly: true } } })).toThrow(
      /s is read-only, so it must be optional or have a default/,
    );
    expect(() => defineModel({ ...base, schema: z.strictObject({ a: z.string(), s: z.string() }), fields: { s: { visibleTo: { scope: 'admin' } } } })).toThrow(
      /s is hidden from some callers, so it must be optional or have a default/,
    );
    expect(() =>
      defineModel({ ...base, schema: z.object({ a: z.string(), s: z.string().optional() }), fields: { s: { visibleTo: { scope: 'admin' } } } }),
    ).toThrow(/needs a strict schema/);
    expect(() => defineModel({ ...base, schema: z.object({ a: z.string(), s: z.string().default('x') }), fields: { s: { readOnly: true } } })).not.toThrow();
  });
});

describe('hidden fields', () => {
  test('are never answered to a caller who may not see them: create, get_one, list, transaction', async () => {
    const { id } = await seeded();
    for (const caller of CALLERS) {
      const hidden = hiddenFrom(caller);
      const got = await call('get_one', { filters: { id } }, caller);
      expect(got.status).toBe(200);
      const listed = await call('list', { filters: { id } }, caller);
      const made = await call('create', { data: { title: 'made' } }, caller);
      const batch = await call('create', { data: [{ title: 'one' }, { title: 'two' }] }, caller);
      const tx = await call('transaction', { operations: [{ op: 'update', model: 'ledger', id, values: { title: `seen by ${caller.sub}` } }] }, caller);
      expect([listed.status, made.status, batch.status, tx.status]).toEqual([200, 201, 201, 200]);
      for (const reply of [got, listed, made, batch, tx]) {
        for (const field of hidden) expect(keysIn(reply.body).has(field)).toBe(false);
        if (hidden.includes('audit_note')) expect(reply.text).not.toContain('SECRET');
      }
      // What the caller may see is there: the record's own values, the read-only field too.
      expect(Object.keys(got.body.data).sort()).toEqual(
        ['id', 'title', 'cost', 'internal', 'audit_note', 'status', 'tags', '_created_at', '_updated_at', '_version'].filter((f) => !hidden.includes(f)).sort(),
      );
    }
    // A caller's write keeps what it could not see: the record still holds every hidden value.
    const stored = (await tableSnapshot()).find((item) => item.id === id)!;
    expect(stored[DATA_ATTRIBUTE]).toEqual(expect.objectContaining({ cost: 42, internal: { score: 7 }, audit_note: `SECRET-${id}`, status: 'approved' }));
  });

  test.each([
    ['a filter', 'list', { filters: { cost: 42 } }],
    ['a filter under $or', 'list', { filters: { $or: [{ title: 'x' }, { cost: { $gt: 1 } }] } }],
    ['a filter under $not', 'count', { filters: { $not: { internal: null } } }],
    ['a dotted path', 'get_one', { filters: { 'internal.score': 7 } }],
    ['fields', 'list', { fields: ['title', 'cost'] }],
    ['fields on get_one', 'get_one', { filters: { title: 'x' }, fields: ['internal'] }],
    ['order_by', 'list', { order_by: '-cost' }],
    ['an update filter', 'update', { filters: { cost: 1 }, values: { title: 'y' } }],
    ['a delete filter', 'delete', { filters: { cost: { $exists: true } } }],
    ['create data', 'create', { data: { title: 'x', cost: 1, tags: 3 } }],
    ['batch create data', 'create', { data: [{ title: 'x' }, { cost: 1 }] }],
    ['update $inc of a path', 'update', { filters: { title: 'nothing' }, values: { $inc: { 'internal.score': 1 } } }],
    ['a transaction create', 'transaction', { operations: [{ op: 'create', model: 'ledger', data: { title: 'x', internal: { score: 1 } } }] }],
    ['a transaction filter', 'transaction', { operations: [{ op: 'check', model: 'ledger', id: 'x', filters: { cost: 1 } }] }],
    ['a transaction update', 'transaction', { operations: [{ op: 'update', model: 'ledger', id: 'x', values: { $set: { 'internal.score': 2 } } }] }],
  ] as Array<[string, Fn, Record<string, unknown>]>)('named in %s, are refused as a field the model lacks, and nothing is written', async (_, fn, body) => {
    const before = await tableSnapshot();
    const named = JSON.stringify(body).includes('internal') ? 'internal' : 'cost';
    const reply = await call(fn, body, WRITER);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.body).toEqual((await asIfAbsent(fn, body, WRITER, named)).body);
    // Its name is in no list of names the answer offers.
    expect(JSON.stringify(reply.body.data.available ?? reply.body.data.sortable ?? [])).not.toContain(named);
    expect(await tableSnapshot()).toEqual(before);
    // A caller who may see the field is not refused for naming it.
    expect((await call(fn, body, ADMIN)).body.data.error).not.toBe('unknown_field');
  });

  test('set whole in update values, are refused as the strict schema refuses a key it lacks, whether or not a record matches', async () => {
    // Up front, as a field the model lacks is: an update matching nothing must not tell the two apart.
    const { id } = await seeded();
    const before = await tableSnapshot();
    for (const filters of [{ id }, { title: 'nothing' }]) {
      for (const values of [{ cost: 1 }, { $set: { cost: 1, title: 'z' } }, { cost: null }, { $unset: { cost: true } }]) {
        const reply = await call('update', { filters, values }, WRITER);
        expect([reply.status, reply.body.data.error, reply.body.data.details]).toEqual([
          422,
          'validation_error',
          [{ path: 'values.cost', message: 'unknown property "cost"' }],
        ]);
        expect(reply.body).toEqual((await asIfAbsent('update', { filters, values }, WRITER, 'cost')).body);
      }
    }
    expect(await tableSnapshot()).toEqual(before);
    expect((await call('update', { filters: { id }, values: { $set: { cost: 1 } } }, ADMIN)).body.data.updated).toBe(1);
  });

  test('compose with an owner rule: a caller reaches its own records, and sees in them only its fields', async () => {
    await createRecords(memo, {
      records: [
        { id: 'm-wes', data: { text: 'mine', owner: 'wes', score: 9 } },
        { id: 'm-ann', data: { text: 'hers', owner: 'ann', score: 3 } },
      ],
    });
    const listed = await call('list', {}, WRITER, 'memo');
    expect(listed.body.data.items.map((r: { id: string }) => r.id)).toEqual(['m-wes']);
    expect(listed.body.data.items[0]).not.toHaveProperty('score');
    expect((await call('count', { filters: { score: 9 } }, WRITER, 'memo')).body.data.error).toBe('unknown_field');
    const made = await call('create', { data: { text: 'new' } }, WRITER, 'memo');
    expect([made.status, made.body.data.owner, made.body.data.score]).toEqual([201, 'wes', undefined]);
    const all = await call('list', { order_by: 'id' }, ADMIN, 'memo');
    expect(all.body.data.items.filter((r: { id: string }) => r.id.startsWith('m-')).map((r: { score: number }) => r.score)).toEqual([3, 9]);
  });

  test('a create naming a field hidden from its caller is refused for that field alone: the owner the service fills in is not missing', async () => {
    const details = (reply: Reply) => [reply.status, reply.body.data.details.map((d: { path: string }) => d.path)];
    expect(details(await call('create', { id: 'm-probe', data: { text: 't', score: 1 } }, WRITER, 'memo'))).toEqual([422, ['data.score']]);
    const transaction = await call('transaction', { operations: [{ op: 'create', model: 'memo', id: 'm-probe', data: { text: 't', score: 1 } }] }, WRITER);
    expect(details(transaction)).toEqual([422, ['operations.0.data.score']]);
    expect((await call('get_one', { filters: { id: 'm-probe' } }, ADMIN, 'memo')).status).toBe(404);
  });

  test('a claim shows a field to the callers who carry it', async () => {
    const { id } = await seeded();
    expect((await call('list', { filters: { audit_note: { $begins_with: 'SECRET' }, id } }, AUDITOR)).body.data.items).toHaveLength(1);
    expect((await call('list', { filters: { audit_note: { $begins_with: 'SECRET' }, id } }, ADMIN)).body.data.error).toBe('unknown_field');
  });

  test('the models endpoint answers each caller its own view', async () => {
    const view = async (caller: Caller) => (await call('models', undefined, caller)).body.data.models.find((m: { name: string }) => m.name === 'ledger');
    const writer = await view(WRITER);
    expect(Object.keys(writer.schema.properties)).toEqual(['title', 'status', 'tags']);
    expect(writer.indexed).toEqual(['title']);
    expect(writer.sortable).toEqual(['id', 'title']);
    expect(writer.layout.indexes.map((i: { field: string }) => i.field)).toEqual(['title']);
    expect(writer.rules).toEqual({ read_only: ['status'] });
    expect(writer.schema.properties.status.readOnly).toBe(true);
    const admin = await view(ADMIN);
    expect(Object.keys(admin.schema.properties)).toEqual(['title', 'cost', 'internal', 'status', 'tags']);
    expect(admin.rules).toEqual({ read_only: ['status'], visible_to: { cost: { scope: 'admin' }, internal: { scope: 'admin' } } });
    expect((await view(AUDITOR)).rules.visible_to).toEqual({ audit_note: { claim: 'auditor' } });
  });
});

test('the OpenAPI document, one per deployment, shows hidden fields marked and read-only ones readOnly', () => {
  const doc = buildOpenApiDocument() as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(doc.tags.find((t: { name: string }) => t.name === 'ledger')['x-recordgate-rules']).toEqual({
    read_only: ['status'],
    visible_to: { cost: { scope: 'admin' }, internal: { scope: 'admin' }, audit_note: { claim: 'auditor' } },
  });
  const record = doc.components.schemas.ledger_record;
  expect(record.properties.cost).toEqual(
    expect.objectContaining({ 'x-recordgate-visible-to': { scope: 'admin' }, description: expect.stringContaining('Shown only') }),
  );
  expect(record.properties.audit_note['x-recordgate-visible-to']).toEqual({ claim: 'auditor' });
  expect(record.properties.status.readOnly).toBe(true);
  expect(record.required).not.toContain('cost');
  // A request may not send a read-only field: the create example leaves it out.
  const example = doc.paths['/api/db/ledger/create'].post.requestBody.content['application/json'].examples.one.value.data;
  expect(example).not.toHaveProperty('status');
  expect(example).toHaveProperty('cost');
});

describe('read-only fields', () => {
  test.each([
    ['create data', 'create', { data: { title: 'x', status: 'approved' } }, 'data.status'],
    ['batch create data', 'create', { data: [{ title: 'x' }, { title: 'y', status: 'approved' }] }, 'data.1.status'],
    ['update values', 'update', { filters: { title: 'any' }, values: { status: 'approved' } }, 'values.status'],
    ['$set', 'update', { filters: { title: 'any' }, values: { $set: { status: 'approved' } } }, 'values.$set.status'],
    ['$unset', 'update', { filters: { title: 'any' }, values: { $unset: { status: true } } }, 'values.$unset.status'],
    ['an upsert seed', 'update', { filters: { id: 'u1', status: 'approved' }, values: { title: 'x' }, upsert: true }, 'filters.status'],
    [
      'a seed under $and',
      'update',
      { filters: { $and: [{ id: 'u1' }, { status: 'approved' }] }, values: { title: 'x' }, upsert: true },
      'filters.$and.1.status',
    ],
    [
      'a transaction create',
      'transaction',
      { operations: [{ op: 'create', model: 'ledger', data: { title: 'x', status: 'approved' } }] },
      'operations.0.data.status',
    ],
    [
      'a transaction update',
      'transaction',
      { operations: [{ op: 'update', model: 'ledger', id: 'x', values: { $set: { status: 'approved' } } }] },
      'operations.0.values.$set.status',
    ],
  ] as Array<[string, Fn, Record<string, unknown>, string]>)(
    'named in %s by any caller, admin too, is 403 with its path, and nothing is written',
    async (_, fn, body, path) => {
      const before = await tableSnapshot();
      for (const caller of [WRITER, ADMIN]) {
        const reply = await call(fn, body, caller);
        expect(reply.status).toBe(403);
        expect(reply.body.data).toEqual(
          expect.objectContaining({ error: 'forbidden', field: 'status', details: [{ path, message: expect.stringContaining('read-only') }] }),
        );
      }
      expect(await tableSnapshot()).toEqual(before);
    },
  );

  test('a filter may name one, the service sets it, and a create without it takes its default', async () => {
    const { id } = await seeded();
    expect((await call('get_one', { filters: { id, status: 'approved' } }, WRITER)).body.data.status).toBe('approved');
    expect((await call('create', { data: { title: 'plain' } }, WRITER)).body.data.status).toBe('new');
  });
});

describe('a random caller never sees a hidden field', () => {
  const field = fc.constantFrom('title', 'cost', 'internal', 'audit_note', 'status', 'tags', 'internal.score');
  const value = fc.oneof(fc.constantFrom('new', 'approved', 't-x'), fc.integer({ min: 0, max: 50 }));
  const filter = fc.oneof(
    fc.constant({}),
    fc.tuple(field, value).map(([f, v]) => ({ [f]: v })),
    fc.tuple(field, field).map(([a, b]) => ({ $or: [{ [a]: { $exists: true } }, { $not: { [b]: null } }] })),
  );
  const data = fc
    .record(
      {
        title: fc.constantFrom('a', 'b'),
        cost: fc.integer({ min: 0, max: 9 }),
        audit_note: fc.constant('SECRET-random'),
        internal: fc.constant({ score: 1 }),
        // A key the model lacks, among hidden ones, is named in the same order as if they all were.
        stray: fc.constant(1),
      },
      { requiredKeys: ['title'] },
    )
    .chain((d) => {
      // In any order: the order keys are sent in is the order a refusal names them.
      const entries = Object.entries(d);
      return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }).map((shuffled) => Object.fromEntries(shuffled));
    });
  const request = fc.oneof(
    fc.record({
      fn: fc.constant<Fn>('list'),
      body: fc.record({ filters: filter, fields: fc.option(fc.array(field, { minLength: 1, maxLength: 2 }), { nil: undefined }) }),
    }),
    fc.record({ fn: fc.constant<Fn>('get_one'), body: fc.record({ filters: filter }) }),
    fc.record({ fn: fc.constant<Fn>('count'), body: fc.record({ filters: filter }) }),
    fc.record({ fn: fc.constant<Fn>('create'), body: fc.record({ data }) }),
    fc.record({
      fn: fc.constant<Fn>('update'),
      body: fc.record({ filters: filter, values: fc.record({ title: fc.constantFrom('c', 'd') }), max_affected: fc.constant(1000) }),
    }),
    fc.record({ fn: fc.constant<Fn>('transaction'), body: data.map((d) => ({ operations: [{ op: 'create', model: 'ledger', data: d }] })) }),
    fc.record({ fn: fc.constant<Fn>('models'), body: fc.constant(undefined) }),
  );

  test('in any answer to any request, and a request naming it is answered as if it did not exist', async () => {
    await seeded();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...CALLERS), request), { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const [caller, { fn, body }] of steps) {
          const reply = await call(fn, body, caller);
          expect(reply.status).toBeLessThan(500);
          const hidden = hiddenFrom(caller);
          // The models endpoint names the rules: a hidden field is not among them for this caller either.
          const keys = keysIn(fn === 'models' ? reply.body.data.models.find((m: { name: string }) => m.name === 'ledger') : reply.body);
          for (const f of hidden) expect(keys.has(f)).toBe(false);
          if (hidden.includes('audit_note')) expect(reply.text).not.toContain('SECRET');
          const named = hidden.filter((f) => JSON.stringify(body ?? {}).includes(`"${f}`));
          if (named.length > 0) {
            expect(reply.status).toBeGreaterThanOrEqual(400);
            expect(reply.body).toEqual((await asIfAbsent(fn, body, caller, ...named)).body);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});
