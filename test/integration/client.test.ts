import { createClient, type Filter, JsonNumber, RecordgateError } from '../../shared/client';
import { reaction } from '../../shared/models/reaction';
import { useApi } from '../support/api';

process.env.API_TOKENS = JSON.stringify({ writer: ['read', 'write'], reader: ['read'] });

const api = useApi();
const client = (token?: string) => createClient({ baseUrl: api.url, token });
const reactions = (token = 'writer') => client(token).db.model(reaction);

/** The RecordgateError a call rejects with. */
async function failureOf(call: Promise<unknown>): Promise<RecordgateError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RecordgateError);
  return error as RecordgateError;
}

test('create one, then see it in list, get_one and count', async () => {
  const created = await reactions().create({ id: 'c-1', data: { user_id: 1669571, user_name: 'octocat', content: '+1' } });
  expect(created).toMatchObject({ id: 'c-1', user_id: 1669571, user_name: 'octocat', content: '+1', _version: 1 });

  const page = await reactions('reader').list({ filters: { user_id: 1669571 } });
  expect(page.items).toEqual([created]);
  expect(page.next_cursor).toBeNull();
  expect(await reactions('reader').getOne({ filters: { id: 'c-1' } })).toEqual(created);
  expect(await reactions('reader').count({ filters: { content: '+1' } })).toEqual({ count: 1, scanned: 1 });
});

test('create a batch; update and delete by filter', async () => {
  const { records } = await reactions().create({
    data: [
      { user_id: 2, content: 'eyes' },
      { user_id: 3, content: 'eyes' },
    ],
    ids: ['b-1', 'b-2'],
  });
  expect(records.map((r) => r.id)).toEqual(['b-1', 'b-2']);
  expect(await reactions().update({ filters: { content: 'eyes' }, values: { user_name: 'seen' } })).toEqual({
    updated: 2,
    matched: 2,
    skipped: 0,
    complete: true,
    next_cursor: null,
  });
  const after = await reactions('reader').list({ filters: { content: 'eyes' } });
  expect(after.items.map((r) => [r.user_name, r._version])).toEqual([
    ['seen', 2],
    ['seen', 2],
  ]);

  const admin = await failureOf(reactions().delete({ filters: { id: 'b-1' } }));
  expect(admin.status).toBe(403);
  expect(admin.data).toMatchObject({ error: 'forbidden', required_scope: 'admin' });
});

test("getOneTagged's etag makes the next update conditional: a stale one is a 412 with the current tag", async () => {
  await reactions().create({ id: 'e-1', data: { user_id: 6, content: 'tag' } }, { ifNoneMatch: '*' });
  const again = await failureOf(reactions().create({ id: 'e-1', data: { user_id: 6, content: 'tag' } }, { ifNoneMatch: '*' }));
  expect([again.status, again.code]).toEqual([412, 'precondition_failed']);
  const { record, etag } = await reactions('reader').getOneTagged({ filters: { id: 'e-1' } });
  expect(record).toMatchObject({ id: 'e-1', _version: 1 });
  expect(await reactions().update({ filters: { id: 'e-1' }, values: { user_name: 'first' } }, { ifMatch: etag })).toMatchObject({ updated: 1 });
  const stale = await failureOf(reactions().update({ filters: { id: 'e-1' }, values: { user_name: 'second' } }, { ifMatch: [etag] }));
  expect([stale.status, stale.code]).toEqual([412, 'precondition_failed']);
  expect(stale.data).toMatchObject({ etag: (await reactions('reader').getOneTagged({ filters: { id: 'e-1' } })).etag });
  expect((await reactions('reader').getOne({ filters: { id: 'e-1' } })).user_name).toBe('first');
});

test("updateTagged's etag chains the next conditional update without a read", async () => {
  await reactions().create({ id: 'e-2', data: { user_id: 7, content: 'chain' } });
  const { record, etag } = await reactions('reader').getOneTagged({ filters: { id: 'e-2' } });
  expect(record._version).toBe(1);
  const first = await reactions().updateTagged({ filters: { id: 'e-2' }, values: { user_name: 'one' } }, { ifMatch: etag });
  expect(first.answer).toMatchObject({ updated: 1 });
  const second = await reactions().updateTagged({ filters: { id: 'e-2' }, values: { user_name: 'two' } }, { ifMatch: first.etag! });
  expect(second.answer).toMatchObject({ updated: 1 });
  expect(second.etag).toBe((await reactions('reader').getOneTagged({ filters: { id: 'e-2' } })).etag);
  const stale = await failureOf(reactions().update({ filters: { id: 'e-2' }, values: { user_name: 'three' } }, { ifMatch: first.etag! }));
  expect([stale.status, stale.code]).toEqual([412, 'precondition_failed']);
  expect((await reactions().updateTagged({ filters: { user_id: 7, content: 'chain' }, values: { user_name: 'four' } })).etag).toBeNull();
});

test('a read with fields answers, and is typed as, id and those fields only', async () => {
  await reactions().create({ id: 'f-1', data: { user_id: 5, user_name: 'eve', content: 'laugh' } });
  const one = await reactions('reader').getOne({ filters: { id: 'f-1' }, fields: ['content', 'user_name'] });
  expect(one).toEqual({ id: 'f-1', content: 'laugh', user_name: 'eve' });
  const content: string = one.content;
  // @ts-expect-error user_id was not asked for, so the type has no user_id either
  expect(one.user_id).toBeUndefined();
  const page = await reactions('reader').list({ filters: { id: 'f-1' }, fields: ['_version'] });
  expect(page.items).toEqual([{ id: 'f-1', _version: 1 }]);
  // @ts-expect-error content was not asked for
  expect(page.items[0].content).toBeUndefined();
  // @ts-expect-error a field the model does not have does not compile (and the service answers unknown_field)
  expect((await failureOf(reactions('reader').getOne({ filters: { id: 'f-1' }, fields: ['nope'] }))).code).toBe('unknown_field');
  expect(content).toBe('laugh');
});

test('numbers travel exactly both ways', async () => {
  const big = JsonNumber.from('18446744073709551617');
  const created = await reactions().create({ data: { user_id: big, content: 'big' } });
  expect(created.user_id).toBeInstanceOf(JsonNumber);
  expect(String(created.user_id)).toBe('18446744073709551617');
  const found = await reactions('reader').getOne({ filters: { user_id: big } });
  expect(String(found.user_id)).toBe('18446744073709551617');
  // On the wire and in the table the digits are the same: the service reads them into the SDK's NumberValue.
  const raw = await api.post('/api/db/reaction/get_one', { filters: { id: created.id } }, { authorization: 'Bearer reader' });
  expect(raw.text).toContain('"user_id":18446744073709551617');
  const fraction = await reactions().create({ data: { user_id: JsonNumber.from('0.1000000000000000055511151231257827'), content: 'fraction' } });
  expect(String(fraction.user_id)).toBe('0.1000000000000000055511151231257827');
  expect(() => JsonNumber.from('1e')).toThrow(TypeError);
});

test('models and health', async () => {
  expect((await client('reader').models()).models.map((m) => m.name)).toContain('reaction');
  expect(await client().health()).toMatchObject({ database: 'ok' });
});

describe("errors carry the envelope's code and details", () => {
  test('validation_error lists each field, and nothing is stored', async () => {
    const error = await failureOf(reactions().create({ id: 'bad', data: { user_id: 1, content: null as unknown as string } }));
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([expect.objectContaining({ path: 'data.content' })]);
    expect((await failureOf(reactions('reader').getOne({ filters: { id: 'bad' } }))).code).toBe('not_found');
  });

  test('no token is unauthorized; a read token cannot write', async () => {
    expect((await failureOf(reactions('').list())).code).toBe('unauthorized');
    const forbidden = await failureOf(reactions('reader').create({ data: { user_id: 1, content: 'x' } }));
    expect([forbidden.status, forbidden.code]).toEqual([403, 'forbidden']);
  });

  test('an unknown model and an invalid filter', async () => {
    const unknown = await failureOf(client('reader').db.model('nope').list());
    expect([unknown.status, unknown.code]).toEqual([404, 'unknown_model']);
    expect(unknown.data.available).toContain('reaction');
    // @ts-expect-error user_id holds numbers: a string bound does not compile, and the service refuses it too
    const filter = await failureOf(reactions('reader').list({ filters: { user_id: { $gt: 'x' } } }));
    expect(filter.code).toBe('invalid_filter');
    expect(filter.details[0].path).toBe('filters.user_id.$gt');
  });
});

test('typed filters with $and/$or/$not and order_by select and order what they say; system fields are plain', async () => {
  await reactions().create({
    data: [
      { user_id: 21, user_name: 'ann', content: 'rocket' },
      { user_id: 22, content: 'rocket' },
      { user_id: 23, user_name: 'cy', content: 'hooray' },
      { user_id: 24, user_name: 'di', content: 'confused' },
    ],
    ids: ['t-1', 't-2', 't-3', 't-4'],
  });
  const filters = {
    $and: [{ user_id: { $between: [21, 29] } }, { $or: [{ content: 'rocket' }, { content: { $begins_with: 'hoo' } }] }],
    $not: { user_name: { $exists: false } },
  } satisfies Filter<typeof reaction>;
  const page = await reactions('reader').list({ filters, order_by: '-user_id', fields: ['content', '_version'] });
  expect(page.items).toEqual([
    { id: 't-3', content: 'hooray', _version: 1 },
    { id: 't-1', content: 'rocket', _version: 1 },
  ]);
  const version: number = page.items[0]._version;
  expect(typeof version).toBe('number');
  expect(await reactions('reader').count({ filters })).toEqual({ count: 2, scanned: expect.any(Number) });
  expect(await reactions().update({ filters: { $and: [filters, { content: 'rocket' }] }, values: { user_name: 'zed' } })).toMatchObject({ updated: 1 });
  const one = await reactions('reader').getOne({ filters: { id: 't-1' } });
  expect([one.user_name, one._version, typeof one._updated_at]).toEqual(['zed', 2, 'string']);
});
