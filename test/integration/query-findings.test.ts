import { useApi } from '../support/api';
import { queryModel } from '../support/models';

// Issue 19, findings 1-4, each as the user meets it through the HTTP API, on one shard and on four.
// The models are added as docs/architecture.md says (test/integration/new-model.test.ts).
const MODELS = [queryModel('qf_one', 1), queryModel('qf_four', 4)];

jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, ...MODELS.map((m) => m.name)],
    findModel: (name: string) => MODELS.find((m) => m.name === name) ?? actual.findModel(name),
  };
});

const api = useApi();

const RECORDS = [
  {
    id: 'a',
    data: {
      s: 'a',
      n: 1,
      tags: ['a', 'b', ''],
      arr: [false, 1, 'a'],
      items: [{ k: 'a' }],
      meta: { a: 1, inner: { b: 'x' } },
      nmeta: { a: 1 },
      free: { x: { y: 1 } },
      loose: { a: 1, extra: 'e' },
    },
  },
  { id: 'b', data: { s: '', n: 2, tags: ['y'], arr: [true, ''], items: [{ k: 'b' }], meta: { a: 2 }, nmeta: null } },
  { id: 'c', data: { n: 3, tags: [], arr: [] } },
];

describe.each(MODELS.map((m) => [m.name]))('%s', (model) => {
  const post = (op: string, body: unknown) => api.post(`/api/db/${model}/${op}`, body);
  const ids = async (body: unknown) => {
    const r = await post('list', body);
    expect(r.status).toBe(200);
    return (r.body.data.items as Array<{ id: string }>).map((i) => i.id);
  };
  /** Every stored record, as the API lists it: what a test holds the store to afterwards. */
  const stored = async () => (await post('list', { limit: 1000 })).body.data.items as Array<Record<string, unknown>>;

  beforeEach(async () => {
    // A delete that meets its time budget on a loaded engine stops with a cursor: go on until it is complete.
    let cursor: string | undefined;
    do {
      const r = await post('delete', { filters: {}, allow_all: true, ...(cursor === undefined ? {} : { cursor }) });
      expect(r.status).toBe(200);
      cursor = r.body.data.complete ? undefined : r.body.data.next_cursor;
    } while (cursor !== undefined);
    const created = await post('create', { data: RECORDS.map((r) => r.data), ids: RECORDS.map((r) => r.id) });
    expect(created.status).toBe(201);
  });

  /** A filter refused alike by every operation, with nothing changed. */
  async function expectRefused(filters: unknown, code: string, path: string, message?: RegExp) {
    const before = await stored();
    for (const op of ['list', 'count', 'get_one', 'update', 'delete']) {
      const body = op === 'update' ? { filters, values: { s: 'changed' } } : { filters };
      const r = await post(op, body);
      expect({ op, status: r.status, error: r.body.data.error, path: r.body.data.path }).toEqual({ op, status: 400, error: code, path });
      if (message) expect(r.body.message).toMatch(message);
    }
    expect(await stored()).toEqual(before);
  }

  describe('1. an operand the field can never hold is 400 invalid_filter, and the message gives the fix', () => {
    test.each([
      [{ tags: 'a' }, 'filters.tags', /\{"tags": \{"\$contains": "a"\}\}.*\{"tags": \{"\$eq": \["a"\]\}\}/],
      [{ tags: { $eq: 'a' } }, 'filters.tags.$eq', /\{"tags": \{"\$contains": "a"\}\}/],
      [{ tags: { $ne: 'a' } }, 'filters.tags.$ne', /\{"tags": \{"\$not": \{"\$contains": "a"\}\}\}/],
      [{ tags: ['a', 'b'] }, 'filters.tags.0', /compared with the whole array, so each must itself be an array.*\$contains/],
      [{ tags: { $in: ['a'] } }, 'filters.tags.$in.0', /whole array.*\$contains/],
      [{ tags: { $nin: ['a'] } }, 'filters.tags.$nin.0', /whole array.*\$contains.*inside \$not/],
      [{ tags: { $gt: 'a' } }, 'filters.tags.$gt', /\$contains/],
      [{ items: { k: 'a' } }, 'filters.items', /\{"items": \{"\$contains": \{"k":"a"\}\}\}/],
      [{ items: { $nin: [{ k: 'a' }] } }, 'filters.items.$nin.0', /whole array.*\{"items": \{"\$contains": \{"k":"a"\}\}\}/],
      [{ arr: { $ne: false } }, 'filters.arr.$ne', /\{"arr": \{"\$not": \{"\$contains": false\}\}\}/],
      [{ arr: [1, 'a'] }, 'filters.arr.0', /whole array.*\{"arr": \{"\$contains": 1\}\}/],
      [{ $or: [{ n: 1 }, { 'meta.inner': { $ne: 'x' } }] }, 'filters.$or.1.meta.inner.$ne', /meta.inner holds an object, not a string/],
      [{ n: { $eq: [1, 2] } }, 'filters.n.$eq', /\{"n": \{"\$in": \[1,2\]\}\}/],
      // Inside an operand: a property the field never has, an element of the wrong kind.
      [{ meta: { $ne: { nope: 1 } } }, 'filters.meta.$ne.nope', /meta has no property nope/],
      [{ items: { $contains: { z: 'a' } } }, 'filters.items.$contains.z', /has no property z/],
      [{ tags: { $ne: [1] } }, 'filters.tags.$ne.0', /an element of tags holds a string, not a number/],
      [{ arr: { $contains: { k: 'a' } } }, 'filters.arr.$contains', /an element of arr holds a number or a string or a boolean, not an object/],
    ])('%j', async (filters, path, message) => {
      await expectRefused(filters, 'invalid_filter', path, message);
    });

    test('the suggested filters answer what they say', async () => {
      expect(await ids({ filters: { tags: { $contains: 'a' } } })).toEqual(['a']);
      expect(await ids({ filters: { tags: { $not: { $contains: 'a' } } } })).toEqual(['b', 'c']);
      expect(await ids({ filters: { tags: { $eq: ['y'] } } })).toEqual(['b']);
      expect(await ids({ filters: { tags: { $ne: ['y'] } } })).toEqual(['a', 'c']);
      expect(await ids({ filters: { tags: [['y'], []] } })).toEqual(['b', 'c']);
      expect(await ids({ filters: { items: { $nin: [[{ k: 'a' }]] } } })).toEqual(['b', 'c']);
      expect(await ids({ filters: { $or: [{ arr: { $contains: 1 } }, { arr: { $contains: '' } }] } })).toEqual(['a', 'b']);
    });
  });

  describe('2. an unknown path is 400 unknown_field at every depth', () => {
    test.each([
      [{ 'meta.nope': 1 }, 'filters.meta.nope'],
      [{ 'meta.inner.nope': 1 }, 'filters.meta.inner.nope'],
      [{ 'meta.a.b': 1 }, 'filters.meta.a.b'],
      [{ 'nmeta.nope': 1 }, 'filters.nmeta.nope'],
      [{ 'items.k': 'a' }, 'filters.items.k'],
      [{ 'tags.0': 'a' }, 'filters.tags.0'],
      [{ $not: { 'nmeta.nope': { $exists: true } } }, 'filters.$not.nmeta.nope'],
      [{ 'meta.nope': { $exists: false } }, 'filters.meta.nope'],
      [{ 'meta.inner.nope': { $exists: false } }, 'filters.meta.inner.nope'],
    ])('%j', async (filters, path) => {
      await expectRefused(filters, 'unknown_field', path);
    });

    test('the answer names the fields of that level', async () => {
      const r = await post('count', { filters: { 'meta.inner.nope': 1 } });
      expect(r.body.data).toMatchObject({ error: 'unknown_field', field: 'meta.inner.nope', available: ['meta.inner.b'] });
    });

    test('delete {"meta.nope": {"$exists": false}} is 400 and deletes nothing', async () => {
      const r = await post('delete', { filters: { 'meta.nope': { $exists: false } } });
      expect(r.status).toBe(400);
      expect(r.body.data.error).toBe('unknown_field');
      const nullable = await post('delete', { filters: { 'nmeta.nope': { $exists: false } } });
      expect(nullable.status).toBe(400);
      expect((await stored()).map((item) => item.id)).toEqual(['a', 'b', 'c']);
    });

    test('a level that keeps any name (z.record, z.looseObject) takes any path', async () => {
      expect(await ids({ filters: { 'free.x.y': 1 } })).toEqual(['a']);
      expect(await ids({ filters: { 'free.nope': { $exists: false } } })).toEqual(['a', 'b', 'c']);
      expect(await ids({ filters: { 'loose.extra': 'e' } })).toEqual(['a']);
      expect(await ids({ filters: { 'nmeta.a': 1 } })).toEqual(['a']);
    });
  });

  describe('3. $contains answers as DynamoDB does, on every engine', () => {
    test.each([
      [{ arr: { $contains: false } }, ['a']],
      [{ arr: { $contains: true } }, ['b']],
      [{ arr: { $contains: '' } }, ['b']],
      [{ arr: { $contains: 1 } }, ['a']],
      [{ arr: { $contains: '1' } }, []],
      [{ tags: { $contains: '' } }, ['a']],
      [{ s: { $contains: '' } }, ['a', 'b']],
      [{ items: { $contains: { k: 'a' } } }, ['a']],
      [{ items: { $contains: { k: 'c' } } }, []],
      // Inside a free-form object the field may hold anything: an element, or a substring.
      [{ 'free.x': { $contains: 'x' } }, []],
      [{ 'free.x': { $contains: { y: 1 } } }, []],
    ])('%j matches %j', async (filters, expected) => {
      expect(await ids({ filters })).toEqual(expected);
      expect((await post('count', { filters })).body.data.count).toBe(expected.length);
    });

    test('delete {"$not": {"tags": {"$contains": ""}}} deletes exactly the records without ""', async () => {
      const r = await post('delete', { filters: { $not: { tags: { $contains: '' } } } });
      expect(r.body.data).toMatchObject({ deleted: 2, complete: true });
      expect((await stored()).map((item) => item.id)).toEqual(['a']);
    });

    test('update {"arr": {"$contains": false}} changes exactly that record', async () => {
      const r = await post('update', { filters: { arr: { $contains: false } }, values: { s: 'changed' } });
      expect(r.body.data).toMatchObject({ updated: 1, complete: true });
      expect((await stored()).map((item) => [item.id, item.s])).toEqual([
        ['a', 'changed'],
        ['b', ''],
        ['c', undefined],
      ]);
    });
  });

  describe('4. an empty string compared with id is decided without a key condition', () => {
    const long = 'é'.repeat(1000);
    const named = (cases: Array<[Record<string, unknown>, string[]]>) => cases.map(([f, e]) => [JSON.stringify(f).replaceAll(long, 'é×1000'), f, e] as const);
    test.each(
      named([
        [{ id: '' }, []],
        [{ id: { $eq: '' } }, []],
        [{ id: { $lt: '' } }, []],
        [{ id: { $lte: '' } }, []],
        [{ id: { $between: ['', ''] } }, []],
        [{ id: { $gte: '' } }, ['a', 'b', 'c']],
        [{ id: { $gt: '' } }, ['a', 'b', 'c']],
        [{ id: { $begins_with: '' } }, ['a', 'b', 'c']],
        [{ id: { $between: ['', 'b'] } }, ['a', 'b']],
        [{ id: { $gt: '', $lt: 'b' } }, ['a']],
        [{ id: { $in: [''] } }, []],
        [{ id: { $ne: '' } }, ['a', 'b', 'c']],
        // Longer than any id: no key condition either (DynamoDB takes at most 1,024 bytes there).
        [{ id: long }, []],
        [{ id: { $begins_with: long } }, []],
        [{ id: { $lt: long } }, ['a', 'b', 'c']],
      ]),
    )('%s: list, count and get_one', async (_, filters, expected) => {
      expect(await ids({ filters })).toEqual(expected);
      expect(await ids({ filters, order_by: '-n' })).toEqual([...expected].reverse());
      expect((await post('count', { filters })).body.data.count).toBe(expected.length);
      const one = await post('get_one', { filters });
      if (expected.length === 0) expect(one.body.data.error).toBe('not_found');
      else expect(one.body.data.id).toBe(expected[0]);
    });

    test('paging through {"id": {"$gte": ""}} one record at a time', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const r = await post('list', { filters: { id: { $gte: '' } }, limit: 1, ...(cursor ? { cursor } : {}) });
        expect(r.status).toBe(200);
        seen.push(...r.body.data.items.map((i: { id: string }) => i.id));
        cursor = r.body.data.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(['a', 'b', 'c']);
    });

    test('update and delete: {"id": ""} changes nothing, ranges from "" change what they match', async () => {
      const before = await stored();
      const none = await post('update', { filters: { id: '' }, values: { s: 'changed' } });
      expect(none.body.data).toMatchObject({ updated: 0, complete: true });
      expect((await post('delete', { filters: { id: { $lte: '' } } })).body.data).toMatchObject({ deleted: 0, complete: true });
      expect(await stored()).toEqual(before);

      const some = await post('update', { filters: { id: { $between: ['', 'a'] } }, values: { s: 'changed' } });
      expect(some.body.data).toMatchObject({ updated: 1, complete: true });
      const gone = await post('delete', { filters: { id: { $begins_with: '', $gt: 'a' }, n: 2 } });
      expect(gone.body.data).toMatchObject({ deleted: 1, complete: true });
      expect((await stored()).map((item) => [item.id, item.s])).toEqual([
        ['a', 'changed'],
        ['c', undefined],
      ]);
    });
  });

  describe('4. an empty string in an indexed field key condition', () => {
    // Missing sorts first, then "", then "a": by s, b comes before a.
    test.each([
      [{ s: '' }, ['b'], ['b']],
      [{ s: { $begins_with: '' } }, ['a', 'b'], ['b', 'a']],
      [{ s: { $gt: '' } }, ['a'], ['a']],
      [{ s: { $gte: '' } }, ['a', 'b'], ['b', 'a']],
      [{ s: { $lte: '' } }, ['b'], ['b']],
      [{ s: { $lt: '' } }, [], []],
      [{ s: { $between: ['', ''] } }, ['b'], ['b']],
      [{ s: { $in: [''] } }, ['b'], ['b']],
    ])('%j', async (filters, expected, byS) => {
      expect(await ids({ filters })).toEqual(expected);
      expect(await ids({ filters, order_by: 's' })).toEqual(byS);
      expect((await post('count', { filters })).body.data.count).toBe(expected.length);
    });

    test('ordering by a field holding "" puts missing first, then "", then the rest', async () => {
      expect(await ids({ order_by: 's' })).toEqual(['c', 'b', 'a']);
      expect(await ids({ order_by: '-s' })).toEqual(['a', 'b', 'c']);
    });
  });

  // Issue 30: `fields` names whole fields; a dotted path there is refused, saying which field to ask for.
  test.each(['get_one', 'list'])('%s: a dotted path in fields is 400 unknown_field naming the whole field', async (op) => {
    const r = await post(op, { filters: { id: 'a' }, fields: ['meta.inner.b'] });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'unknown_field', field: 'meta.inner.b', details: [{ path: 'fields' }] });
    expect(r.body.data.details[0].message).toMatch(/fields names whole fields: ask for "meta"/);
    const whole = await post(op, { filters: { id: 'a' }, fields: ['meta'] });
    expect(whole.status).toBe(200);
  });
});
