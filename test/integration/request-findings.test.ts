import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { InitializeHandlerArguments } from '@smithy/types';
import { settings } from '../../shared/config';
import { withDeadline } from '../../shared/invocation';
import { db } from '../../shared/store/client';
import { MatchesAll } from '../../shared/store/errors';
import { createRecords, deleteRecords, updateRecords } from '../../shared/store/records';
import { localOnly, useApi } from '../support/api';
import { noteModel } from '../support/models';
import { storedItems } from '../support/stored';
import { tableSnapshot } from '../support/table-snapshot';

/**
 * Issue 19's request-level holes, each as a user meets it: a filter that matches a whole model
 * (finding 6), prototype keys in a body (7), bytes that are not UTF-8 (8) and an empty cursor (9).
 */
const TOKENS = { writer: ['read', 'write'], deleter: ['read', 'write', 'admin'], root: ['read', 'write', 'admin'] };
process.env.API_TOKENS = JSON.stringify(TOKENS);

const api = useApi();
const as = (token: keyof typeof TOKENS) => ({ authorization: `Bearer ${token}` });
const reaction = (op: string) => `/api/db/reaction/${op}`;
const post = (op: string, body: unknown, token: keyof typeof TOKENS = 'root') => api.post(reaction(op), body, as(token));
/** JSON text as written: `"__proto__"` in an object literal would set a prototype, not send a key. */
const postText = (op: string, text: string, token: keyof typeof TOKENS = 'root') => api.post(reaction(op), text, as(token));

const SEEDS = [
  { id: 'm1', data: { user_id: 1, content: 'same', user_name: 'ann' } },
  { id: 'm2', data: { user_id: 2, content: 'same', user_name: 'bob' } },
  { id: 'm3', data: { user_id: 3, content: 'same' } },
  { id: 'm4', data: { user_id: 4, content: 'same' } },
];

/** The reaction model holding exactly `seeds` (through the API, with admin and allow_all). */
async function holdOnly(seeds: typeof SEEDS): Promise<void> {
  expect((await post('delete', { filters: {}, allow_all: true })).status).toBe(200);
  const created = await post('create', { data: seeds.map((s) => s.data), ids: seeds.map((s) => s.id) });
  expect(created.status).toBe(201);
}

const storedIds = async () => (await tableSnapshot()).filter((i) => String(i.pk).startsWith('reaction#')).map((i) => i.id);

describe('finding 6: a whole model is changed only on purpose', () => {
  // Each matches all four seeds, spelled another way; some read through the content index.
  const MATCH_EVERY = [
    { id: { $exists: true } },
    { _version: { $gte: 1 } },
    { $or: [{ user_name: null }, { user_name: { $ne: null } }] },
    { content: 'same' },
    { id: { $begins_with: 'm' } },
    { $not: { id: 'no-such-record' } },
    { user_id: { $nin: [0, 99] } },
    { $and: [{ _created_at: { $lt: '9999' } }, { content: { $exists: true } }] },
    { id: ['m1', 'm2', 'm3', 'm4'] },
  ];

  beforeEach(() => holdOnly(SEEDS));

  test.each(MATCH_EVERY.map((f) => [JSON.stringify(f), f]))(
    '%s: 409 matches_all for update and delete without allow_all, nothing written; admin with allow_all goes through',
    async (_, filters) => {
      const before = await tableSnapshot();
      const update = await post('update', { filters, values: { user_name: 'all' } }, 'writer');
      expect(update.status).toBe(409);
      expect(update.body).toMatchObject({
        status: 'error',
        message: 'the filter matches every record of reaction (4); send allow_all: true (needs the admin scope) if you mean it',
        data: { error: 'matches_all', model: 'reaction', matched: 4, details: [{ path: 'filters' }] },
      });
      // The admin scope alone is not enough: the request must say it means every record.
      const del = await post('delete', { filters }, 'deleter');
      expect(del.status).toBe(409);
      expect(del.body.data).toMatchObject({ error: 'matches_all', matched: 4 });
      expect(await tableSnapshot()).toEqual(before);

      expect((await post('update', { filters, values: { user_name: 'all' }, allow_all: true }, 'writer')).status).toBe(403);
      const allowed = await post('update', { filters, values: { user_name: 'all' }, allow_all: true }, 'root');
      expect(allowed.status).toBe(200);
      expect(allowed.body.data).toMatchObject({ updated: 4, matched: 4, complete: true });
      const deleted = await post('delete', { filters, allow_all: true }, 'root');
      expect(deleted.body.data).toMatchObject({ deleted: 4, complete: true });
      expect(await storedIds()).toEqual([]);
    },
  );

  test('a filter that matches all records but one is not refused', async () => {
    const update = await post('update', { filters: { id: { $ne: 'm4' } }, values: { user_name: 'most' } }, 'writer');
    expect(update.status).toBe(200);
    expect(update.body.data).toMatchObject({ updated: 3, matched: 3 });
    const del = await post('delete', { filters: { user_name: 'most' } }, 'deleter');
    expect(del.body.data).toMatchObject({ deleted: 3 });
    expect(await storedIds()).toEqual(['m4']);
  });

  test('the one-record exception: a model holding one record may lose it to a filter that matches it', async () => {
    await holdOnly(SEEDS.slice(0, 1));
    const update = await post('update', { filters: { id: { $exists: true } }, values: { user_name: 'only' } }, 'writer');
    expect(update.body.data).toMatchObject({ updated: 1 });
    const del = await post('delete', { filters: { _version: { $gte: 1 } } }, 'deleter');
    expect(del.body.data).toMatchObject({ deleted: 1 });
    expect(await storedIds()).toEqual([]);
  });

  test('a filter that matches nothing, or fewer than all, answers as before', async () => {
    expect((await post('update', { filters: { content: 'other' }, values: { user_name: 'x' } }, 'writer')).body.data).toMatchObject({ matched: 0 });
    expect((await post('update', { filters: { user_id: { $lt: 3 } }, values: { user_name: 'x' } }, 'writer')).body.data).toMatchObject({ updated: 2 });
  });

  test('max_affected still refuses first: more matches than allowed is too_many_matches', async () => {
    const r = await post('update', { filters: { content: 'same' }, values: { user_name: 'x' }, max_affected: 2 }, 'writer');
    expect(r.status).toBe(409);
    expect(r.body.data.error).toBe('too_many_matches');
  });

  /** Runs `during` once, right before the first COUNT query of the service's own client reaches the engine. */
  async function beforePopulationCount<T>(during: () => Promise<unknown>, run: () => Promise<T>): Promise<T> {
    let done = false;
    const name = 'beforePopulationCount';
    db().middlewareStack.add(
      (next) => async (args: InitializeHandlerArguments<any>) => {
        if (!done && (args.input as { Select?: string }).Select === 'COUNT') {
          done = true;
          await during();
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      return await run();
    } finally {
      db().middlewareStack.remove(name);
    }
  }
  const TableName = () => settings().TABLE_NAME;

  localOnly('a record created between the match and the count: the write goes on and leaves the new record alone', async () => {
    const r = await beforePopulationCount(
      () =>
        db().send(new PutCommand({ TableName: TableName(), Item: { pk: 'reaction#0', sk: 'm9', id: 'm9', d: { user_id: 9, content: 'late' }, _version: 1 } })),
      () => post('update', { filters: { id: { $exists: true } }, values: { user_name: 'all' } }, 'writer'),
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ updated: 4, matched: 4 });
    const late = (await tableSnapshot()).find((i) => i.id === 'm9');
    expect(late?.d).toEqual({ user_id: 9, content: 'late' });
  });

  localOnly('a matched record deleted before the count: refused, on the safe side', async () => {
    const before = (await tableSnapshot()).filter((i) => i.id !== 'm4');
    const r = await beforePopulationCount(
      () => db().send(new DeleteCommand({ TableName: TableName(), Key: { pk: 'reaction#0', sk: 'm4' } })),
      () => post('update', { filters: { content: 'same' }, values: { user_name: 'all' } }, 'writer'),
    );
    expect(r.status).toBe(409);
    expect(r.body.data.error).toBe('matches_all');
    expect(await tableSnapshot()).toEqual(before);
  });

  describe('on a model spread over 4 shards (the store itself)', () => {
    const note = noteModel('guarded_note', 4);
    const ids = Array.from({ length: 24 }, (_, i) => `g${String(i).padStart(2, '0')}`);
    beforeAll(() => createRecords(note, { records: ids.map((id, i) => ({ id, data: { title: `t${i}`, rank: i } })) }, { pathOf: (i) => ['data', i] }));

    test('every spelling of all is refused, all but one is not', async () => {
      for (const filters of [{ id: { $exists: true } }, { rank: { $gte: 0 } }, { $not: { title: 'none' } }]) {
        await expect(updateRecords(note, { filters, values: { done: true } })).rejects.toBeInstanceOf(MatchesAll);
        await expect(deleteRecords(note, { filters })).rejects.toBeInstanceOf(MatchesAll);
      }
      expect((await storedItems(note)).every((i) => i._version === 1)).toBe(true);
      expect(await updateRecords(note, { filters: { id: { $ne: 'g07' } }, values: { done: true } })).toMatchObject({ updated: 23 });
      expect(await updateRecords(note, { filters: { id: { $exists: true } }, values: { done: false }, allow_all: true })).toMatchObject({ updated: 24 });
    });

    test('the count behind the check reads at most one key past the matches of each shard', async () => {
      const scanned: number[] = [];
      const name = 'countCost';
      db().middlewareStack.add(
        (next) => async (args: InitializeHandlerArguments<any>) => {
          const result = await next(args);
          if ((args.input as { Select?: string }).Select === 'COUNT') scanned.push((result.output as { ScannedCount?: number }).ScannedCount ?? 0);
          return result;
        },
        { step: 'initialize', name },
      );
      try {
        expect(await updateRecords(note, { filters: { rank: { $lt: 2 } }, values: { done: true } })).toMatchObject({ updated: 2 });
      } finally {
        db().middlewareStack.remove(name);
      }
      expect(scanned.length).toBeGreaterThanOrEqual(note.shards);
      expect(scanned.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 + note.shards);
    });

    test('a resumed call is checked again: a cursor says an earlier call was let through, not that the model is still the same', async () => {
      const filters = { rank: { $gte: 1 } }; // all but g00
      const stopped = await withDeadline(Date.now(), () => updateRecords(note, { filters, values: { done: true } }));
      expect(stopped).toMatchObject({ updated: 0, matched: 23, complete: false });
      await deleteRecords(note, { filters: { id: 'g00' } });
      const resumed = updateRecords(note, { filters, values: { done: true }, cursor: stopped.next_cursor! });
      await expect(resumed).rejects.toBeInstanceOf(MatchesAll);
      expect(await updateRecords(note, { filters, values: { done: true }, cursor: stopped.next_cursor!, allow_all: true })).toMatchObject({ updated: 23 });
    });
  });
});

describe('finding 7: prototype keys are refused wherever a body holds keys', () => {
  beforeAll(() => holdOnly(SEEDS));

  test.each([
    ['update', '{"filters":{"id":"m1"},"values":{"__proto__":{"content":"x"}}}', 'values.__proto__'],
    ['update', '{"filters":{"id":"m1"},"values":{"constructor":{"content":"x"}}}', 'values.constructor'],
    ['update', '{"filters":{"id":"m1"},"values":{"user_name":"ok","prototype":1}}', 'values.prototype'],
    ['create', '{"id":"p1","data":{"user_id":1,"content":"x","__proto__":{"user_id":2}}}', 'data.__proto__'],
    ['create', '{"data":[{"user_id":1,"content":"x"},{"user_id":1,"content":"y","extra":{"deep":{"constructor":1}}}]}', 'data.1.extra.deep.constructor'],
    ['list', '{"filters":{"__proto__":{"content":"same"}}}', 'filters.__proto__'],
    ['count', '{"filters":{"$or":[{"content":"same"},{"user_name":{"$in":[{"prototype":1}]}}]}}', 'filters.$or.1.user_name.$in.0.prototype'],
    ['get_one', '{"filters":{"content.constructor":"x"}}', 'filters.content.constructor'],
    ['delete', '{"filters":{"id":"m1","__proto__":{}}}', 'filters.__proto__'],
    ['list', '{"fields":["content","__proto__"]}', 'fields.1'],
    ['get_one', '{"filters":{"id":"m1"},"fields":["constructor"]}', 'fields.0'],
  ])('%s %s: 400 invalid_request with the path, nothing stored', async (op, text, path) => {
    const before = await tableSnapshot();
    const r = await postText(op, text);
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_request', details: [{ path }] });
    expect(r.body.message).toContain(path);
    expect(await tableSnapshot()).toEqual(before);
  });

  test('other keys that look like them still work', async () => {
    expect((await postText('update', '{"filters":{"id":"m1"},"values":{"user_name":"__proto__"}}')).body.data).toMatchObject({ updated: 1 });
    expect((await postText('count', '{"filters":{"user_name":"__proto__"}}')).body.data.count).toBe(1);
  });
});

describe('finding 8: a body that is not UTF-8 is malformed_json', () => {
  const json = (before: string, bytes: number[], after: string) => Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
  const create = (bytes: number[]) => json('{"id":"u8-', bytes, '","data":{"user_id":8,"content":"bytes"}}');

  test.each([
    ['0xff', [0xff]],
    ['0xfe', [0xfe]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['a surrogate encoded as UTF-8', [0xed, 0xa0, 0x80]],
    ['a lone continuation byte', [0x80]],
  ])('an id with %s: 400, nothing stored', async (_, bytes) => {
    const before = await tableSnapshot();
    const r = await api.post(reaction('create'), create(bytes), as('root'));
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'malformed_json' });
    expect(r.body.message).toBe('The body is not valid UTF-8');
    expect(await tableSnapshot()).toEqual(before);
  });

  test('"u8-\\xff" and "u8-\\xfe" can no longer become one id', async () => {
    expect((await api.post(reaction('create'), create([0xff]), as('root'))).status).toBe(400);
    expect((await api.post(reaction('create'), create([0xfe]), as('root'))).status).toBe(400);
    expect((await post('count', { filters: { id: { $begins_with: 'u8-' } } })).body.data.count).toBe(0);
  });

  test('in a filter or in values too', async () => {
    expect((await api.post(reaction('list'), json('{"filters":{"content":"', [0xff], '"}}'), as('root'))).body.data.error).toBe('malformed_json');
    const before = await tableSnapshot();
    const r = await api.post(reaction('update'), json('{"filters":{"id":"m1"},"values":{"user_name":"', [0xfe], '"}}'), as('root'));
    expect(r.body.data.error).toBe('malformed_json');
    expect(await tableSnapshot()).toEqual(before);
  });

  test('valid multi-byte UTF-8 is stored byte for byte', async () => {
    const r = await api.post(reaction('create'), create([0xc3, 0xbf, 0xf0, 0x9f, 0x98, 0x80]), as('root'));
    expect(r.status).toBe(201);
    expect((await post('get_one', { filters: { id: 'u8-ÿ😀' } })).body.data.content).toBe('bytes');
  });
});

describe('finding 9: an empty cursor is not "no cursor"', () => {
  beforeAll(() => holdOnly(SEEDS));

  test.each([
    ['list', { limit: 1, cursor: '' }],
    ['update', { filters: { id: 'm1' }, values: { user_name: 'x' }, cursor: '' }],
    ['delete', { filters: { id: 'm1' }, cursor: '' }],
  ])('%s with cursor "": 400 invalid_cursor, nothing changed', async (op, body) => {
    const before = await tableSnapshot();
    const r = await post(op, body);
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_cursor', details: [{ path: 'cursor' }] });
    expect(await tableSnapshot()).toEqual(before);
  });
});
