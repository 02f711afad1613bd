import { createHash } from 'node:crypto';
import type { Change } from '../../shared/feed/change';
import { checkSubscriptions } from '../../shared/feed/check-subscriptions';
import { type BusEntry, consumeStream } from '../../shared/feed/consume';
import type { Delivery } from '../../shared/feed/queue';
import { reaction } from '../../shared/models/reaction';
import { recordLayout } from '../../shared/store/layout/index-build';
import { type Reply, useApi } from '../support/api';
import { streamSoFar } from '../support/stream-records';

// Writes of every kind through the API, then the table's real stream (DynamoDB Local's, and
// dynalite's of patch 008) read and handed to the consumer: what each subscription is handed is
// one change per committed write, in commit order per record, told as the API tells the record,
// with the request and caller that made it; nothing for what did not commit or is not a record.
const WRITER = 'feed-writer-token';
const OTHER = 'feed-other-token';
process.env.API_TOKENS = JSON.stringify({ [WRITER]: ['read', 'write'], [OTHER]: ['read', 'write', 'admin'] });
const digestOf = (token: string) => `token:${createHash('sha256').update(token).digest('base64url').slice(0, 32)}`;
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

const api = useApi();
beforeAll(async () => {
  await recordLayout(reaction);
});
const route = (op: string) => `/api/db/reaction/${op}`;
const send = async (path: string, body: unknown, token = WRITER, headers: Record<string, string> = {}): Promise<Reply & { requestId: string }> => {
  const reply = await api.post(path, body, { authorization: `Bearer ${token}`, ...headers });
  return { ...reply, requestId: reply.headers.get('apigw-requestid')! };
};
const ok = async (...args: Parameters<typeof send>) => {
  const reply = await send(...args);
  expect([200, 201]).toContain(reply.status);
  return reply;
};

/** Lines grouped by the record they tell of (the second word), each group in its order. */
function perRecord(lines: string[]): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const line of lines) (groups[line.split(' ')[1]] ??= []).push(line);
  return groups;
}

/** What a change tells, short: op, record, version, and who made it. */
const told = (c: Change) => [c.op, c.id, c.version, c.request_id ?? '-', c.subject ?? '-'].join(' ');

test('each subscription is handed one change per committed write, per record in commit order, as the API tells records', async () => {
  const w = digestOf(WRITER);
  const o = digestOf(OTHER);
  const expected: string[] = [];
  const one = await ok(route('create'), { id: 'f1', data: { user_id: 1, content: 'heart' } });
  expected.push(`create f1 1 ${one.requestId} ${w}`);
  const batch = await ok(route('create'), {
    ids: ['f2', 'f3'],
    data: [
      { user_id: 2, content: 'rocket' },
      { user_id: 2, content: 'rocket' },
    ],
  });
  expected.push(`create f2 1 ${batch.requestId} ${w}`, `create f3 1 ${batch.requestId} ${w}`);
  const bulk = await ok(route('update'), { filters: { user_id: 2 }, values: { content: 'heart' } }, OTHER);
  expected.push(`update f2 2 ${bulk.requestId} ${o}`, `update f3 2 ${bulk.requestId} ${o}`);
  const inPlace = await ok(route('update'), { filters: { id: 'f1' }, values: { $set: { user_name: 'ann' } } });
  expected.push(`update f1 2 ${inPlace.requestId} ${w}`);
  const upsertMade = await ok(route('update'), { filters: { id: 'f4' }, values: { $set: { user_id: 4, content: 'up' } }, upsert: true });
  const upsertUpdated = await ok(route('update'), { filters: { id: 'f4' }, values: { $inc: { user_id: 1 } }, upsert: true });
  expected.push(`create f4 1 ${upsertMade.requestId} ${w}`, `update f4 2 ${upsertUpdated.requestId} ${w}`);
  const transaction = await ok(
    '/api/db/transaction',
    {
      operations: [
        { op: 'create', model: 'reaction', id: 'f5', data: { user_id: 5, content: 'tx' } },
        { op: 'update', model: 'reaction', id: 'f4', values: { content: 'heart' } },
        { op: 'delete', model: 'reaction', id: 'f3' },
      ],
    },
    OTHER,
  );
  // A delete's image is gone: no request or caller to tell.
  expected.push(`create f5 1 ${transaction.requestId} ${o}`, `update f4 3 ${transaction.requestId} ${o}`, 'delete f3 2 - -');
  const keyed = await ok(route('create'), { id: 'f6', data: { user_id: 6, content: 'keyed' } }, WRITER, { 'idempotency-key': 'feed-key-1' });
  expected.push(`create f6 1 ${keyed.requestId} ${w}`);
  await ok(route('delete'), { filters: { id: 'f2' } }, OTHER);
  expected.push('delete f2 2 - -');

  // What commits nothing tells nothing: a refused create, a rolled-back transaction, an update matching none.
  expect((await send(route('create'), { id: 'bad', data: { user_id: 'x', content: 1 } })).status).toBe(422);
  const rolledBack = await send('/api/db/transaction', {
    operations: [
      { op: 'create', model: 'reaction', id: 'f-rolled', data: { user_id: 7, content: 'no' } },
      { op: 'update', model: 'reaction', id: 'f1', values: { content: 'no' } },
      { op: 'check', model: 'reaction', id: 'f5', filters: { user_id: 99 } },
    ],
  });
  expect(rolledBack.status).toBeGreaterThanOrEqual(400);
  expect((await ok(route('update'), { filters: { user_id: 99 }, values: { content: 'none' } })).body.data.updated).toBe(0);

  const subscriptions = await checkSubscriptions(
    JSON.stringify([
      { name: 'all', models: ['reaction'], url: 'https://h.test/all', secret: SECRET },
      { name: 'hearts', models: ['reaction'], filter: { content: 'heart' }, url: 'https://h.test/hearts', secret: SECRET },
      { name: 'deletes', models: ['reaction'], ops: ['delete'], bus: 'default' },
      { name: 'bots', models: ['onebot_event'], url: 'https://h.test/bots', secret: SECRET },
    ]),
  );
  const queued: Delivery[] = [];
  const published: BusEntry[] = [];
  const records = await streamSoFar();
  const answer = await consumeStream(records, {
    subscriptions,
    queue: { send: async (deliveries) => void queued.push(...deliveries) },
    publish: async (entries) => {
      published.push(...entries);
      return [];
    },
  });
  expect(answer).toEqual({ batchItemFailures: [] });
  const to = (name: string) => queued.filter((d) => d.subscription === name).map((d) => d.change);
  const all = to('all');
  // Each record's changes in the order its writes committed (records apart go on side by side).
  expect(perRecord(all.map(told))).toEqual(perRecord(expected));
  expect(new Set(all.map((c) => c.change_id)).size).toBe(all.length);
  // The stream also held what is not a record (the layout, the Idempotency-Key's item): no change for those.
  expect(records.length).toBeGreaterThan(all.length);

  // Told as the API tells the record: its fields and system fields, nothing the API hides.
  const shown = await ok(route('get_one'), { filters: { id: 'f4' } });
  expect(all.find((c) => c.id === 'f4' && c.version === 3)?.after).toEqual(shown.body.data);
  expect(all.find((c) => c.id === 'f4' && c.version === 3)?.before).toMatchObject({ content: 'up', user_id: 5, _version: 2 });
  expect(all.find((c) => c.op === 'delete' && c.id === 'f2')).toMatchObject({ before: { id: 'f2', content: 'heart', _version: 2 } });
  for (const c of all) {
    expect(Number.isNaN(Date.parse(c.time))).toBe(false);
    for (const image of [c.before, c.after])
      if (image)
        expect(Object.keys(image).filter((k) => !['id', 'user_id', 'user_name', 'content', '_created_at', '_updated_at', '_version'].includes(k))).toEqual([]);
  }

  // The filter reads `after`, or `before` for a delete; the ops keep what they name; a bus gets the same changes.
  const heart = (c: Change) => (c.op === 'delete' ? c.before : c.after)?.content === 'heart';
  expect(perRecord(to('hearts').map(told))).toEqual(perRecord(all.filter(heart).map(told)));
  expect(perRecord(published.map((e) => told(e.change)))).toEqual(perRecord(all.filter((c) => c.op === 'delete').map(told)));
  expect(to('bots')).toEqual([]);

  // The stream read again from the start (a redelivery, a replay) tells the very same changes, ids included.
  const again: Delivery[] = [];
  await consumeStream(records, { subscriptions, queue: { send: async (d) => void again.push(...d) }, publish: async () => [] });
  expect(perRecord(again.map((d) => `${d.subscription} ${d.change.id} ${d.change.change_id}`))).toEqual(
    perRecord(queued.map((d) => `${d.subscription} ${d.change.id} ${d.change.change_id}`)),
  );
});
