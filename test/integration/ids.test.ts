import fc from 'fast-check';
import { LIMITS } from '../../shared/limits';
import { useApi } from '../support/api';
import { fuzzed, fuzzTimeout } from '../support/fuzz';

const api = useApi();
const post = (op: string, body: unknown) => api.post(`/api/db/reaction/${op}`, body);

test('service-made ids of one batch (one millisecond) list in creation order', async () => {
  const data = Array.from({ length: 50 }, (_, i) => ({ user_id: 7, content: `n${i}` }));
  const created = await api.post('/api/db/reaction/create', { data });
  expect(created.status).toBe(201);
  const listed = await api.post('/api/db/reaction/list', { filters: { user_id: 7 }, limit: 100 });
  expect(listed.body.data.items.map((r: { content: string }) => r.content)).toEqual(data.map((d) => d.content));
});

/**
 * Every id create takes is found by every way of naming it. Lengths are Unicode code points, as
 * create counts them; the planner once counted UTF-16 units, so an id of 101 emoji was stored
 * (201) and then answered 404, count 0 and a second create 201 where 409 was due.
 */
describe('every id the API accepts is found by each operation', () => {
  const ASTRAL = (c: number) => String.fromCodePoint(c);
  /** One character: ASCII, other BMP text (C1 controls and surrogates excluded), or astral. */
  const character = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }).map(ASTRAL),
    fc.oneof(fc.integer({ min: 0xa0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0xfffd })).map(ASTRAL),
    fc.integer({ min: 0x10000, max: 0x10ffff }).map(ASTRAL),
    fc.constantFrom('😀', '𝄞'),
  );
  const length = fc.oneof(fc.constantFrom(1, 100, 101, 199, LIMITS.maxIdLength), fc.integer({ min: 1, max: LIMITS.maxIdLength }));
  const id = length.chain((n) => fc.array(character, { minLength: n, maxLength: n })).map((chars) => chars.join(''));
  const MARK = 'id-property';

  async function foundEverywhere(id: string): Promise<void> {
    const created = await post('create', { id, data: { user_id: 1, content: MARK } });
    expect([id, created.status]).toEqual([id, 201]);
    expect((await post('get_one', { filters: { id } })).body.data).toMatchObject({ id, content: MARK });
    const counts = await Promise.all(
      [{ id }, { id: { $eq: id } }, { id: { $in: [id] } }, { id: { $begins_with: id }, content: MARK }].map(
        async (filters) => (await post('count', { filters })).body.data.count,
      ),
    );
    expect([id, counts]).toEqual([id, [1, 1, 1, 1]]);
    expect([id, (await post('create', { id, data: { user_id: 2, content: MARK } })).status]).toEqual([id, 409]);
    expect((await post('update', { filters: { id }, values: { user_id: 3 } })).body.data.updated).toBe(1);
    expect((await post('get_one', { filters: { id } })).body.data.user_id).toBe(3);
    expect((await post('delete', { filters: { id } })).body.data.deleted).toBe(1);
    expect((await post('get_one', { filters: { id } })).status).toBe(404);
  }

  test.each([
    ['101 emoji (202 UTF-16 units)', '😀'.repeat(101)],
    ['199 letters and an emoji', `${'a'.repeat(199)}😀`],
    [`${LIMITS.maxIdLength} emoji`, '😀'.repeat(LIMITS.maxIdLength)],
  ])('%s', async (_what, id) => {
    await foundEverywhere(id);
  });

  test(
    'ids mixing BMP and astral characters, up to the longest',
    async () => {
      await fc.assert(fc.asyncProperty(id, foundEverywhere), { ...fuzzed(12, 300), endOnFailure: true });
    },
    fuzzTimeout(120_000),
  );

  test.each([
    ['a C1 control (U+0085)', 'a\u0085b'],
    ['a C1 control (U+009F)', '\u009f'],
    ['DEL', 'a\u007f'],
    [`${LIMITS.maxIdLength + 1} emoji`, '😀'.repeat(LIMITS.maxIdLength + 1)],
  ])('an id with %s is refused, nothing stored', async (_what, id) => {
    const r = await post('create', { id, data: { user_id: 1, content: MARK } });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'invalid_request', details: [{ path: 'id' }] });
    expect((await post('count', { filters: { content: MARK } })).body.data.count).toBe(0);
  });
});
