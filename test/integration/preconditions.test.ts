import { localOnly, useApi, type Reply } from '../support/api';
import { spyOnLog } from '../support/log';
import { useSteerableProxy } from '../support/steerable-proxy';
import { commandsSent } from '../support/commands-sent';
import { storedItems } from '../support/stored';
import { touching } from '../support/write-rules';

// HTTP preconditions (issue 32, RFC 9110 section 13) as a client uses them: get_one's ETag sent
// back as If-Match on the next update or delete of that record, If-None-Match: * on create.
// What counts is the status, the body, and what is stored afterwards.
// The proxy first: against cdk.out the harness takes the engine's endpoint when it starts, and it must be the proxy's.
const proxy = useSteerableProxy();
const api = useApi();
const reaction = { name: 'reaction', shards: 1 };
const post = (op: string, body: unknown, headers: Record<string, string> = {}) => api.post(`/api/db/reaction/${op}`, body, headers);
const getOne = (id: string) => post('get_one', { filters: { id }, consistent: true });
const stored = async (id: string) => (await storedItems(reaction)).find((item) => item.id === id);
const make = async (id: string, content = id) => expect((await post('create', { id, data: { user_id: 1, content } })).status).toBe(201);
const tagOf = async (id: string): Promise<string> => {
  const reply = await getOne(id);
  expect(reply.status).toBe(200);
  return reply.headers.get('etag')!;
};
const refusedWith = (reply: Reply, status: number, code: string) => {
  expect({ status: reply.status, code: reply.body?.data?.error }).toEqual({ status, code });
};

describe('get_one answers a strong ETag', () => {
  test('that changes on every write and never repeats for the id, even after delete and create', async () => {
    await make('pre-tag');
    const first = await getOne('pre-tag');
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"1-[A-Za-z0-9_-]{16}"$/);
    // Reading again is the same representation: the same tag.
    expect(await tagOf('pre-tag')).toBe(tag);
    expect((await post('update', { filters: { id: 'pre-tag' }, values: { content: 'x' } })).status).toBe(200);
    const second = await tagOf('pre-tag');
    expect(second).toMatch(/^"2-/);
    expect((await post('delete', { filters: { id: 'pre-tag' } })).body.data.deleted).toBe(1);
    await make('pre-tag');
    // The same _version again, and still another tag: it names this record, not its number of writes.
    const remade = await tagOf('pre-tag');
    expect(remade).toMatch(/^"1-/);
    expect(new Set([tag, second, remade]).size).toBe(3);
  });

  test('with fields too, and on a read by another field', async () => {
    await make('pre-fields', 'pre-fields-content');
    const whole = await tagOf('pre-fields');
    expect((await post('get_one', { filters: { id: 'pre-fields' }, fields: ['content'] })).headers.get('etag')).toBe(whole);
    expect((await post('get_one', { filters: { content: 'pre-fields-content' }, consistent: false })).headers.get('etag')).toMatch(/^"1-/);
  });
});

describe('If-Match on update and delete of one record by id', () => {
  test('the current tag lets the write through, and the answer of a stale one is 412 with the current tag, nothing written', async () => {
    await make('pre-up');
    const tag = await tagOf('pre-up');
    const ok = await post('update', { filters: { id: 'pre-up' }, values: { content: 'first' } }, { 'if-match': tag });
    expect(ok.status).toBe(200);
    expect(ok.body.data.updated).toBe(1);
    const now = await tagOf('pre-up');
    const before = await stored('pre-up');
    const stale = await post('update', { filters: { id: 'pre-up' }, values: { content: 'second' } }, { 'if-match': tag });
    refusedWith(stale, 412, 'precondition_failed');
    expect(stale.body.data.etag).toBe(now);
    expect(stale.body.data.details).toEqual([{ path: 'headers.if-match', message: `the record is now ${now}` }]);
    expect(stale.headers.get('etag')).toBe(now);
    expect(await stored('pre-up')).toEqual(before);
    const staleDelete = await post('delete', { filters: { id: 'pre-up' } }, { 'if-match': tag });
    refusedWith(staleDelete, 412, 'precondition_failed');
    expect(await stored('pre-up')).toEqual(before);
    // Any one of a list, and weak tags never match (strong comparison).
    refusedWith(await post('delete', { filters: { id: 'pre-up' } }, { 'if-match': `W/${now}` }), 412, 'precondition_failed');
    const listed = await post('delete', { filters: { id: 'pre-up' } }, { 'if-match': `${tag}, ${now}` });
    expect(listed.body.data.deleted).toBe(1);
    expect(await stored('pre-up')).toBeUndefined();
  });

  test('a missing record fails If-Match, * included; * takes any stored record', async () => {
    const missing = await post('update', { filters: { id: 'pre-none' }, values: { content: 'x' } }, { 'if-match': '*' });
    refusedWith(missing, 412, 'precondition_failed');
    expect(missing.body.data.etag).toBeNull();
    expect(missing.headers.get('etag')).toBeNull();
    refusedWith(await post('delete', { filters: { id: 'pre-none' } }, { 'if-match': '"1-AAAAAAAAAAAAAAAA"' }), 412, 'precondition_failed');
    expect(await stored('pre-none')).toBeUndefined();
    await make('pre-star');
    expect((await post('update', { filters: { id: 'pre-star' }, values: { content: 'y' } }, { 'if-match': '*' })).body.data.updated).toBe(1);
    // The filters are part of the condition: a record by that id that they exclude fails it too.
    const excluded = await post('update', { filters: { id: 'pre-star', content: 'other' }, values: { content: 'z' } }, { 'if-match': '*' });
    refusedWith(excluded, 412, 'precondition_failed');
    expect(((await stored('pre-star'))!.d as { content: string }).content).toBe('y');
  });

  test('If-Match needs filters that name one id by equality: 400, nothing written', async () => {
    await make('pre-many-1', 'pre-many');
    await make('pre-many-2', 'pre-many');
    const tag = await tagOf('pre-many-1');
    for (const filters of [{ content: 'pre-many' }, { id: { $in: ['pre-many-1', 'pre-many-2'] } }, { $or: [{ id: 'pre-many-1' }, { id: 'x' }] }]) {
      const reply = await post('update', { filters, values: { content: 'changed' } }, { 'if-match': tag });
      refusedWith(reply, 400, 'invalid_request');
      expect(reply.body.data.details[0].path).toBe('headers.if-match');
      refusedWith(await post('delete', { filters }, { 'if-match': tag }), 400, 'invalid_request');
    }
    expect((await storedItems(reaction)).filter((i) => (i.d as { content: string }).content === 'pre-many')).toHaveLength(2);
  });

  test('malformed or misplaced preconditions are 400, never ignored', async () => {
    await make('pre-bad');
    const before = await stored('pre-bad');
    for (const value of ['abc', '"unterminated', '"a" "b"', ',', '']) {
      const reply = await post('update', { filters: { id: 'pre-bad' }, values: { content: 'x' } }, { 'if-match': value });
      refusedWith(reply, 400, 'invalid_request');
    }
    refusedWith(await post('delete', { filters: { id: 'pre-bad' } }, { 'if-none-match': '*' }), 400, 'invalid_request');
    expect(await stored('pre-bad')).toEqual(before);
  });

  test('a replay under the same Idempotency-Key answers the first answer, a 412 included', async () => {
    await make('pre-key');
    const stale = '"1-AAAAAAAAAAAAAAAA"';
    const headers = { 'if-match': stale, 'idempotency-key': 'pre-key-412' };
    const first = await post('update', { filters: { id: 'pre-key' }, values: { content: 'k' } }, headers);
    refusedWith(first, 412, 'precondition_failed');
    const again = await post('update', { filters: { id: 'pre-key' }, values: { content: 'k' } }, headers);
    expect(again.status).toBe(412);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    const tag = await tagOf('pre-key');
    const keyed = { 'if-match': tag, 'idempotency-key': 'pre-key-200' };
    expect((await post('update', { filters: { id: 'pre-key' }, values: { content: 'k2' } }, keyed)).body.data.updated).toBe(1);
    // The record's tag moved on with the first run; the replay is still its answer, not a 412.
    const replay = await post('update', { filters: { id: 'pre-key' }, values: { content: 'k2' } }, keyed);
    expect(replay.status).toBe(200);
    expect(replay.body.data.updated).toBe(1);
    expect((await stored('pre-key'))!._version).toBe(2);
  });
});

// The functions run in this process only on the local server; the artifact harness's sandboxes log where no spy reaches.
localOnly("a 412's request line names its code", async () => {
  await make('pre-log');
  const info = spyOnLog('info');
  let lines: Array<Record<string, unknown>>;
  try {
    refusedWith(
      await post('update', { filters: { id: 'pre-log' }, values: { content: 'x' } }, { 'if-match': '"1-AAAAAAAAAAAAAAAA"' }),
      412,
      'precondition_failed',
    );
  } finally {
    lines = info.mock.calls.map(([line]) => JSON.parse(line as string)).filter((line) => line.code === 'request');
    info.mockRestore();
  }
  expect(lines).toEqual([expect.objectContaining({ status: 412, error: 'precondition_failed', model: 'reaction' })]);
});

describe('If-None-Match: * on create', () => {
  test('creates an absent record, answers 412 for one that exists (409 without it), and takes nothing but *', async () => {
    const body = { id: 'pre-new', data: { user_id: 1, content: 'n' } };
    expect((await post('create', body, { 'if-none-match': '*' })).status).toBe(201);
    const before = await stored('pre-new');
    const again = await post('create', { ...body, data: { user_id: 2, content: 'm' } }, { 'if-none-match': '*' });
    refusedWith(again, 412, 'precondition_failed');
    expect(again.body.data.ids).toEqual(['pre-new']);
    expect(again.body.data.details[0].path).toBe('headers.if-none-match');
    refusedWith(await post('create', body), 409, 'conflict');
    // A batch is all or nothing, under the header too.
    const batch = await post('create', { ids: ['pre-batch', 'pre-new'], data: [body.data, body.data] }, { 'if-none-match': '*' });
    refusedWith(batch, 412, 'precondition_failed');
    expect(batch.body.data.ids).toEqual(['pre-new']);
    expect(await stored('pre-batch')).toBeUndefined();
    refusedWith(await post('create', { id: 'pre-other', data: body.data }, { 'if-none-match': '"1-AAAAAAAAAAAAAAAA"' }), 400, 'invalid_request');
    refusedWith(await post('create', { id: 'pre-other', data: body.data }, { 'if-match': '*' }), 400, 'invalid_request');
    expect(await stored('pre-new')).toEqual(before);
    expect(await stored('pre-other')).toBeUndefined();
  });
});

describe('write answers carry the ETag get_one answers next, so a client chains If-Match without reading', () => {
  const etagOf = (reply: Reply) => reply.headers.get('etag');

  test('create of one record, and update of one record by id, each answer the new tag, which the next write may send as If-Match', async () => {
    const created = await post('create', { id: 'pre-chain', data: { user_id: 1, content: 'c0' } });
    expect(created.status).toBe(201);
    expect(etagOf(created)).toMatch(/^"1-/);
    expect(etagOf(created)).toBe(await tagOf('pre-chain'));
    let tag = etagOf(created)!;
    for (const content of ['c1', 'c2']) {
      const updated = await post('update', { filters: { id: 'pre-chain' }, values: { content } }, { 'if-match': tag });
      expect({ status: updated.status, updated: updated.body.data.updated }).toEqual({ status: 200, updated: 1 });
      expect(etagOf(updated)).not.toBe(tag);
      expect(etagOf(updated)).toBe(await tagOf('pre-chain'));
      tag = etagOf(updated)!;
    }
    // Beside another condition on the record, and without If-Match: the filters still name the one record.
    const alongside = await post('update', { filters: { id: 'pre-chain', content: 'c2' }, values: { user_name: 'n' } });
    expect(etagOf(alongside)).toBe(await tagOf('pre-chain'));
    refusedWith(await post('update', { filters: { id: 'pre-chain' }, values: { content: 'late' } }, { 'if-match': tag }), 412, 'precondition_failed');
    expect((await stored('pre-chain'))?.d).toEqual({ user_id: 1, content: 'c2', user_name: 'n' });
  });

  test('an upsert answers the tag of the record it made or changed', async () => {
    const body = { filters: { id: 'pre-upsert' }, values: { $setOnInsert: { content: 'u' }, $inc: { user_id: 1 } }, upsert: true };
    const made = await post('update', body);
    expect(made.body.data.upserted).toBe(true);
    expect(etagOf(made)).toMatch(/^"1-/);
    expect(etagOf(made)).toBe(await tagOf('pre-upsert'));
    const changed = await post('update', body, { 'if-match': etagOf(made)! });
    expect(changed.body.data).toMatchObject({ updated: 1, upserted: false });
    expect(etagOf(changed)).toBe(await tagOf('pre-upsert'));
  });

  test('no tag where no one record by id was changed: a batch create, an update matching none, several or one by another field, a delete', async () => {
    const batch = await post('create', { ids: ['pre-none-1', 'pre-none-2'], data: [1, 2].map((n) => ({ user_id: n, content: 'pre-none' })) });
    expect(batch.status).toBe(201);
    expect(etagOf(batch)).toBeNull();
    const missing = await post('update', { filters: { id: 'pre-none-x' }, values: { content: 'x' } });
    expect({ updated: missing.body.data.updated, etag: etagOf(missing) }).toEqual({ updated: 0, etag: null });
    const several = await post('update', { filters: { content: 'pre-none' }, values: { user_name: 'x' } });
    expect({ updated: several.body.data.updated, etag: etagOf(several) }).toEqual({ updated: 2, etag: null });
    const byField = await post('update', { filters: { user_id: 1, content: 'pre-none' }, values: { user_name: 'y' } });
    expect({ updated: byField.body.data.updated, etag: etagOf(byField) }).toEqual({ updated: 1, etag: null });
    // A delete leaves no representation to tag (RFC 9110 8.8.3).
    const removed = await post('delete', { filters: { id: 'pre-none-1' } });
    expect({ deleted: removed.body.data.deleted, etag: etagOf(removed) }).toEqual({ deleted: 1, etag: null });
  });

  localOnly('costs no command: an update by id sends what it sent before the tag (a read and the write)', async () => {
    await make('pre-cost');
    let reply: Reply | undefined;
    const sent = await commandsSent(async () => {
      reply = await post('update', { filters: { id: 'pre-cost' }, values: { content: 'cost' } });
    });
    expect(etagOf(reply!)).toBe(await tagOf('pre-cost'));
    expect(sent).toEqual({ QueryCommand: 1, UpdateItemCommand: 1 });
  });
});

describe('a conditional write whose answer was lost', () => {
  test("is settled as every write is: the record shows the write's own token, so the answer is its 200, not a 412", async () => {
    await make('pre-lost-up');
    await make('pre-lost-del');
    const up = await tagOf('pre-lost-up');
    const del = await tagOf('pre-lost-del');
    await proxy.set({ loseAnswers: touching(['pre-lost-up', 'pre-lost-del']) });
    const update = await post('update', { filters: { id: 'pre-lost-up' }, values: { content: 'landed' } }, { 'if-match': up });
    const remove = await post('delete', { filters: { id: 'pre-lost-del' } }, { 'if-match': del });
    await proxy.set('pass');
    await proxy.drained();
    expect(proxy.counts().lost).toBeGreaterThanOrEqual(2);
    expect([update.status, update.body.data.updated]).toEqual([200, 1]);
    expect([remove.status, remove.body.data.deleted]).toEqual([200, 1]);
    expect(await stored('pre-lost-up')).toMatchObject({ d: { content: 'landed' }, _version: 2 });
    expect(await stored('pre-lost-del')).toBeUndefined();
  }, 60_000);
});
