import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../shared/config';
import { defineModel, type Model } from '../../shared/models/define';
import { db } from '../../shared/store/client';
import { layoutKey } from '../../shared/store/layout/layout';
import { useApi } from '../support/api';
import { spyOnLog } from '../support/log';
import { shardOf } from '../../shared/store/keys';
import { startSteerableProxy } from '../support/steerable-proxy';
import { tableSnapshot } from '../support/table-snapshot';

// Issue 22: a model holding data changes as docs/architecture.md "Changing a model" says, on the
// same data, and every answer is exact or a clear non-2xx. The model is swapped in the catalog
// (test/integration/new-model.test.ts) as a restart with an edited model file would; each new
// definition is a new object, so each is checked against the stored layout as a new container would.
const fields = { a: z.string(), b: z.string().optional() };
const define = (changes: { indexed: Array<'a' | 'b'>; shards?: number; required?: boolean }, name = 'evolving'): Model =>
  defineModel({
    name,
    description: 'a model that changes with its data in place',
    schema: changes.required ? z.strictObject({ ...fields, c: z.string() }) : z.strictObject(fields),
    indexed: changes.indexed,
    shards: changes.shards,
  });
const V1 = define({ indexed: ['a'] });
const ADDED_INDEX = define({ indexed: ['a', 'b'] });
const MORE_SHARDS = define({ indexed: ['a', 'b'], shards: 4 });
const REORDERED = define({ indexed: ['b', 'a'] });
const REQUIRED_FIELD = define({ indexed: ['a', 'b'], required: true });

/** A model whose indexed field `b` changes type: numbers, then strings, then either. */
const kindModel = (b: z.ZodType<number | string>) =>
  defineModel({ name: 'evolving_kind', description: 'a model whose indexed field changes type', schema: z.strictObject({ b }), indexed: ['b'] });

/** A model that drops its field `note` while records hold it. */
const removedModel = (more: z.ZodRawShape = {}) =>
  defineModel({ name: 'evolving_removed', description: 'a model that loses a field', schema: z.strictObject({ a: z.string(), ...more }) });

const mockCurrent: Record<string, Model> = {
  evolving: V1,
  evolving_empty: define({ indexed: ['a'] }, 'evolving_empty'),
  evolving_kind: kindModel(z.number()),
  evolving_removed: removedModel({ note: z.string().optional() }),
};

jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, 'evolving', 'evolving_empty', 'evolving_kind', 'evolving_removed'],
    findModel: (name: string) => mockCurrent[name] ?? actual.findModel(name),
  };
});

const api = useApi();
const post = (op: string, body: unknown, model = 'evolving') => api.post(`/api/db/${model}/${op}`, body);
const count = async (filters: unknown) => {
  const r = await post('count', { filters });
  expect(r.status).toBe(200);
  return r.body.data.count as number;
};
const ids = (r: { body: { data: { items: Array<{ id: string }> } } }) => r.body.data.items.map((i) => i.id);
/** The index build, loaded only where it runs: the repros before it run on a release without it too. */
const build = (model: Model, options?: { budget?: number }) =>
  (require('../../shared/store/layout/index-build') as typeof import('../../shared/store/layout/index-build')).buildIndexes(model, options);

/** The models endpoint's view of the model's stored layout. */
const layoutShown = async (model = 'evolving') =>
  ((await api.get('/api/db/models')).body.data.models as Array<{ name: string; layout: unknown }>).find((m) => m.name === model)!.layout;

/**
 * The deploy's check (functions/index_build as a CloudFormation custom resource): its answer,
 * as CloudFormation would receive it at the event's ResponseURL.
 */
async function deployCheck(): Promise<{ Status: string; Reason: string }> {
  let received = '';
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    request.on('end', () => response.end());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  try {
    const { handler } = require('../../functions/index_build/handler') as typeof import('../../functions/index_build/handler');
    const event = {
      RequestType: 'Update',
      ResponseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/answer`,
      StackId: 'stack',
      RequestId: 'request',
      LogicalResourceId: 'ModelLayouts',
      PhysicalResourceId: 'recordgate-model-layouts',
    };
    await handler(event, { getRemainingTimeInMillis: () => 60_000 } as Context);
    return JSON.parse(received);
  } finally {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  }
}

const RECORDS = Array.from({ length: 60 }, (_, i) => ({ id: `r${String(i).padStart(2, '0')}`, data: { a: `a${i % 3}`, b: `x${i % 3}` } }));

// Everything reaches the engine through a proxy that section 4 cuts, as if DynamoDB went away.
let proxy: Awaited<ReturnType<typeof startSteerableProxy>>;
beforeAll(async () => {
  proxy = await startSteerableProxy(process.env.DYNAMODB_ENDPOINT!);
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
});
afterAll(() => proxy.close());

beforeAll(async () => {
  const created = await post('create', { data: RECORDS.map((r) => r.data), ids: RECORDS.map((r) => r.id) });
  expect(created.status).toBe(201);
});

describe('1. a field appended to indexed', () => {
  beforeAll(() => {
    mockCurrent.evolving = ADDED_INDEX;
  });

  test('before its index is built, filters on it answer exactly through the records themselves', async () => {
    expect(await count({ b: 'x1' })).toBe(20);
    const one = await post('get_one', { filters: { b: 'x2' } });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ b: 'x2' });
    const listed = await post('list', { filters: { b: 'x0' }, limit: 1000 });
    expect(ids(listed)).toEqual(RECORDS.filter((r) => r.data.b === 'x0').map((r) => r.id));
  });

  test('ordering by it answers 503 index_building with its progress, not an empty page', async () => {
    const r = await post('list', { order_by: 'b' });
    expect(r.status).toBe(503);
    expect(r.body.data).toMatchObject({ error: 'index_building', model: 'evolving', field: 'b', progress: { records_done: 0, shards: 1 } });
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await layoutShown()).toEqual({
      state: 'building',
      indexes: [
        { field: 'a', index: 'gsi1', state: 'ready' },
        { field: 'b', index: 'gsi2', state: 'building' },
      ],
      progress: { records_done: 0, shard: 0, shards: 1 },
    });
  });

  test('that 503 is an expected answer: logged by its request line, never as an error with a stack', async () => {
    const info = spyOnLog('info');
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect((await post('list', { order_by: '-b' })).status).toBe(503);
      expect(errors).not.toHaveBeenCalled();
      const lines = info.mock.calls.map(([line]) => JSON.parse(String(line)));
      expect(lines).toContainEqual(expect.objectContaining({ level: 'info', code: 'request', status: 503, error: 'index_building', model: 'evolving' }));
    } finally {
      errors.mockRestore();
      info.mockRestore();
    }
  });

  test('writes during the build keep the answers exact, and a build stopped half-way resumes where it stopped', async () => {
    expect((await post('create', { data: [{ a: 'a0', b: 'x1' }], ids: ['r60'] })).status).toBe(201);
    expect((await post('update', { filters: { id: 'r03' }, values: { b: 'x1' } })).status).toBe(200);
    expect(await count({ b: 'x1' })).toBe(22);
    expect(await count({ b: 'x0' })).toBe(19);

    const half = await build(ADDED_INDEX, { budget: 25 });
    expect(half.layout).toMatchObject({ building: ['b'], progress: { shard: 0, done: 25 } });
    const during = await post('list', { order_by: 'b' });
    expect(during.body.data).toMatchObject({ error: 'index_building', progress: { records_done: 25 } });
    // A write to a record the build has not reached yet, and to one it has.
    expect((await post('update', { filters: { id: 'r50' }, values: { b: 'x0' } })).status).toBe(200);
    expect((await post('update', { filters: { id: 'r01' }, values: { b: 'x9' } })).status).toBe(200);

    // The rest by the scheduled run (functions/index_build), which says what it did on a line naming its invocation.
    const lines = spyOnLog('info');
    try {
      const { handler } = require('../../functions/index_build/handler') as typeof import('../../functions/index_build/handler');
      await handler({}, { awsRequestId: 'scheduled-build', getRemainingTimeInMillis: () => 60_000 } as Context);
      const said = lines.mock.calls.map(([line]) => JSON.parse(line as string)).filter((line) => line.code === 'index_build' && line.model === 'evolving');
      expect(said).toEqual([{ level: 'info', code: 'index_build', request_id: 'scheduled-build', model: 'evolving', building: [], filled: 61 - 25 }]);
    } finally {
      lines.mockRestore();
    }
    expect(await layoutShown()).toMatchObject({ state: 'ready', indexes: [{ state: 'ready' }, { state: 'ready' }] });
  });

  test('once built, the index answers exactly: equality, order and ranges', async () => {
    const expected = [...RECORDS, { id: 'r60', data: { a: 'a0', b: 'x1' } }].map((r) => ({
      id: r.id,
      b: ({ r03: 'x1', r50: 'x0', r01: 'x9' } as Record<string, string>)[r.id] ?? r.data.b,
    }));
    const ordered = [...expected].sort((p, q) => (p.b === q.b ? (p.id < q.id ? -1 : 1) : p.b < q.b ? -1 : 1)).map((r) => r.id);
    const listed = await post('list', { order_by: 'b', limit: 1000 });
    expect(listed.status).toBe(200);
    expect(ids(listed)).toEqual(ordered);
    for (const b of ['x0', 'x1', 'x2', 'x9']) expect(await count({ b })).toBe(expected.filter((r) => r.b === b).length);
    const one = await post('get_one', { filters: { b: 'x9' } });
    expect(one.body.data).toMatchObject({ id: 'r01', b: 'x9' });
    const paged = await post('list', { order_by: '-b', filters: { b: { $gte: 'x1' } }, limit: 1000 });
    expect(ids(paged)).toEqual(
      [...expected]
        .filter((r) => r.b >= 'x1')
        .sort((p, q) => (p.b === q.b ? (p.id < q.id ? 1 : -1) : p.b < q.b ? 1 : -1))
        .map((r) => r.id),
    );
  });

  test('a second build finds nothing to do, and a deploy check passes', async () => {
    expect(await build(ADDED_INDEX)).toMatchObject({ filled: 0, layout: { building: [] } });
    expect(await deployCheck()).toMatchObject({ Status: 'SUCCESS' });
  });
});

describe('2. shards raised, and index slots reordered, on a model holding data', () => {
  afterAll(() => {
    mockCurrent.evolving = ADDED_INDEX;
  });

  test.each([
    ['shards raised to 4', MORE_SHARDS, /stored with shards: 1, but its definition says shards: 4.*put shards back to 1/],
    ['index slots reordered', REORDERED, /indexed as \[a, b\], but its definition says indexed: \[b, a\].*keep \[a, b\] first/],
  ])('%s: every operation answers 500 model_layout_mismatch naming the model, the change and the fix; nothing is written', async (_, model, message) => {
    mockCurrent.evolving = model;
    // A record stored in shard 0 whose id hashes to another shard of four: today's code answered it 404.
    const moved = RECORDS.find((r) => shardOf(MORE_SHARDS, r.id) !== 0)!.id;
    const before = await tableSnapshot();
    const requests: Array<[string, unknown]> = [
      ['get_one', { filters: { id: moved } }],
      ['list', {}],
      ['count', { filters: { b: 'x1' } }],
      ['create', { data: { a: 'a1' } }],
      ['update', { filters: { id: moved }, values: { a: 'z' } }],
      ['delete', { filters: { id: moved } }],
    ];
    for (const [op, body] of requests) {
      const r = await post(op, body);
      expect({ op, status: r.status, error: r.body.data.error, model: r.body.data.model }).toEqual({
        op,
        status: 500,
        error: 'model_layout_mismatch',
        model: 'evolving',
      });
      expect(r.body.message).toMatch(message);
    }
    expect(await tableSnapshot()).toEqual(before);
    const shown = (await layoutShown()) as { state: string; change: string; fix: string };
    expect(shown.state).toBe('mismatch');
    expect(`${shown.change}. To fix: ${shown.fix}`).toMatch(message);
  });

  test('a deploy with the change fails, saying the same (CloudFormation then rolls it back)', async () => {
    mockCurrent.evolving = MORE_SHARDS;
    const answer = await deployCheck();
    expect(answer.Status).toBe('FAILED');
    expect(answer.Reason).toMatch(/Model evolving cannot be served: its records are stored with shards: 1, but its definition says shards: 4/);
  });

  test('the local server refuses to start, saying the same', async () => {
    const { recordModelLayouts, StartupError } = require('../../scripts/local/startup') as typeof import('../../scripts/local/startup');
    const refusal = recordModelLayouts([MORE_SHARDS]);
    await expect(refusal).rejects.toBeInstanceOf(StartupError);
    await expect(refusal).rejects.toThrow(/Model evolving cannot be served: its records are stored with shards: 1/);
  });

  test('a model holding nothing takes any new shards and slots', async () => {
    mockCurrent.evolving_empty = define({ indexed: ['b', 'a'], shards: 4 }, 'evolving_empty');
    expect((await post('create', { data: [{ a: 'a1', b: 'x1' }, { a: 'a2' }] }, 'evolving_empty')).status).toBe(201);
    const listed = await post('list', { order_by: 'b' }, 'evolving_empty');
    expect(listed.body.data.items.map((i: { a: string }) => i.a)).toEqual(['a2', 'a1']);
  });
});

describe('3. a required field added', () => {
  beforeAll(() => {
    mockCurrent.evolving = REQUIRED_FIELD;
  });

  test('stored records without it read as they are stored', async () => {
    const one = await post('get_one', { filters: { id: 'r10' } });
    expect(one.status).toBe(200);
    expect(one.body.data).not.toHaveProperty('c');
    expect(await count({ b: 'x1' })).toBe(21);
  });

  test('updating one without setting it is 422 naming the field; setting it works', async () => {
    const refused = await post('update', { filters: { id: 'r10' }, values: { a: 'q' } });
    expect(refused.status).toBe(422);
    expect(refused.body.data.error).toBe('validation_error');
    expect(refused.body.data.details).toEqual([expect.objectContaining({ path: 'values.c' })]);
    const fixed = await post('update', { filters: { id: 'r10' }, values: { c: 'now set' } });
    expect(fixed.status).toBe(200);
    expect((await post('get_one', { filters: { id: 'r10' } })).body.data).toMatchObject({ a: 'a1', c: 'now set' });
    expect((await post('create', { data: { a: 'a1' } })).status).toBe(422);
  });

  test('models:check reports every stored record without it, and changes nothing', async () => {
    const { auditModel } = require('../../shared/store/layout/audit') as typeof import('../../shared/store/layout/audit');
    const before = await tableSnapshot();
    const audit = await auditModel(REQUIRED_FIELD, 2);
    expect(audit).toMatchObject({ model: 'evolving', records: 61, refused: 60 });
    expect(audit.examples).toEqual([
      { id: 'r00', details: [expect.objectContaining({ path: 'c' })] },
      { id: 'r01', details: [expect.objectContaining({ path: 'c' })] },
    ]);
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('4. the layout read on a first request fails', () => {
  test('the request answers 503 database_unavailable, and the next one, once the database is back, reads the layout again', async () => {
    mockCurrent.evolving = define({ indexed: ['a', 'b'], required: true });
    await proxy.set('refuse');
    try {
      const down = await post('count', { filters: { b: 'x1' } });
      expect(down.status).toBe(503);
      expect(down.body.data.error).toBe('database_unavailable');
    } finally {
      await proxy.set('pass');
    }
    expect(await count({ b: 'x1' })).toBe(21);
  });
});

describe('5. an indexed field whose type changes (number to string)', () => {
  const kindPost = (op: string, body: unknown) => post(op, body, 'evolving_kind');
  const NUMBERS = kindModel(z.number());
  const refusedEverywhere = async () => {
    const before = await tableSnapshot();
    for (const [op, body] of [
      ['count', { filters: { b: '7' } }],
      ['list', {}],
      ['create', { data: { b: 'x' } }],
      ['delete', { filters: { b: '7' } }],
    ] as const) {
      const r = await kindPost(op, body);
      expect({ op, status: r.status, error: r.body.data.error }).toEqual({ op, status: 500, error: 'model_layout_mismatch' });
      expect(r.body.message).toMatch(/index on b holds number values, but its definition says b holds string.*declare b to hold number again/);
    }
    expect(await tableSnapshot()).toEqual(before);
  };
  const storedLayout = async () => (await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: layoutKey(NUMBERS), ConsistentRead: true }))).Item;

  beforeAll(async () => {
    mockCurrent.evolving_kind = NUMBERS;
    const data = [7, 7, 7, 7, 7, 8, 9].map((b) => ({ b }));
    expect((await kindPost('create', { data })).status).toBe(201);
  });
  afterAll(() => {
    mockCurrent.evolving_kind = NUMBERS;
  });

  test('with no layout recorded, the stored keys tell the kind: every operation answers 500 model_layout_mismatch', async () => {
    // As a release before layouts were recorded left it (the deploy checks above recorded one).
    await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: layoutKey(NUMBERS) }));
    mockCurrent.evolving_kind = kindModel(z.string());
    await refusedEverywhere();
  });

  test('a layout recorded before kinds were takes the definition at its next recording, then refuses the change and fails the deploy', async () => {
    await build(NUMBERS);
    expect(await storedLayout()).toMatchObject({ slots: ['b'], kinds: [['number']] });
    // As a release before kinds stored it.
    await db().send(new UpdateCommand({ TableName: settings().TABLE_NAME, Key: layoutKey(NUMBERS), UpdateExpression: 'REMOVE kinds' }));
    mockCurrent.evolving_kind = kindModel(z.number());
    expect((await kindPost('count', { filters: { b: 7 } })).body.data.count).toBe(5);
    await build(mockCurrent.evolving_kind);
    expect(await storedLayout()).toMatchObject({ kinds: [['number']] });

    mockCurrent.evolving_kind = kindModel(z.string());
    await refusedEverywhere();
    const answer = await deployCheck();
    expect(answer.Status).toBe('FAILED');
    expect(answer.Reason).toMatch(/Model evolving_kind cannot be served: its records' index on b holds number values/);
  });

  test('widening it to number or string keeps the stored values found, in filters and in order', async () => {
    mockCurrent.evolving_kind = kindModel(z.union([z.number(), z.string()]));
    expect((await kindPost('count', { filters: { b: 7 } })).body.data.count).toBe(5);
    expect((await kindPost('create', { data: { b: 'x' } })).status).toBe(201);
    const listed = await kindPost('list', { order_by: 'b', filters: { b: { $gte: 8 } } });
    expect(listed.body.data.items.map((r: { b: number }) => r.b)).toEqual([8, 9]);
    expect((await kindPost('count', { filters: { b: 'x' } })).body.data.count).toBe(1);
  });
});

describe('6. a field removed from the schema while records hold it', () => {
  const removedPost = (op: string, body: unknown) => post(op, body, 'evolving_removed');
  const stored = async (id: string) => (await removedPost('get_one', { filters: { id } })).body.data;

  beforeAll(async () => {
    const data = [{ a: '1', note: 'x' }, { a: '2', note: 'y' }, { a: '3', note: 'z' }, { a: '4' }];
    expect((await removedPost('create', { data, ids: ['n1', 'n2', 'n3', 'n4'] })).status).toBe(201);
    // Deployed with its field, as `npm start` and every deploy record it; then the field is dropped.
    await (require('../../shared/store/layout/index-build') as typeof import('../../shared/store/layout/index-build')).recordLayout(
      mockCurrent.evolving_removed,
    );
    mockCurrent.evolving_removed = removedModel();
  });

  test('reads return it as stored; filters, fields and new data refuse it as a field the model does not have', async () => {
    expect(await stored('n1')).toMatchObject({ a: '1', note: 'x' });
    expect((await removedPost('count', { filters: { note: 'x' } })).body.data).toMatchObject({ error: 'unknown_field', field: 'note' });
    expect((await removedPost('list', { fields: ['note'] })).body.data).toMatchObject({ error: 'unknown_field', field: 'note' });
    const created = await removedPost('create', { data: { a: '5', note: 'x' } });
    expect(created.body.data).toMatchObject({ error: 'validation_error', details: [{ path: 'data.note' }] });
  });

  test('an update must leave the record valid: one that keeps it is 422 naming it, one that sets it to null removes it', async () => {
    const kept = await removedPost('update', { filters: { id: 'n1' }, values: { a: 'q' } });
    expect(kept.status).toBe(422);
    expect(kept.body.data.details).toEqual([
      { path: 'values.note', message: 'record n1: unknown property "note"; evolving_removed no longer declares it: add "note": null to values to remove it' },
    ]);
    expect(await stored('n1')).toMatchObject({ a: '1', note: 'x', _version: 1 });
    // A transaction's update of it is held to the same rule, and writes nothing.
    const transacted = await api.post('/api/db/transaction', { operations: [{ op: 'update', model: 'evolving_removed', id: 'n1', values: { a: 'q' } }] });
    expect(transacted.status).toBe(422);
    expect(transacted.body.data.details.map((d: { path: string }) => d.path)).toEqual(['operations.0.values.note']);
    expect(await stored('n1')).toMatchObject({ a: '1', note: 'x', _version: 1 });
    // A record without it updates as any other.
    expect((await removedPost('update', { filters: { id: 'n4' }, values: { a: 'q' } })).body.data.updated).toBe(1);

    const removed = await removedPost('update', { filters: { id: 'n1' }, values: { note: null, a: 'r' } });
    expect(removed.body.data.updated).toBe(1);
    expect(await stored('n1')).not.toHaveProperty('note');
    expect(await stored('n1')).toMatchObject({ a: 'r', _version: 2 });
    // Every record at once, those holding it or not.
    const all = await removedPost('update', { filters: {}, allow_all: true, values: { note: null } });
    expect(all.body.data).toMatchObject({ updated: 4, matched: 4 });
    expect((await removedPost('list', {})).body.data.items.filter((r: object) => 'note' in r)).toEqual([]);
  });
});
