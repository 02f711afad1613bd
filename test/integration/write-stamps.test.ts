import { createHash } from 'node:crypto';
import { servingCaller, withinInvocation } from '../../shared/invocation';
import { reaction } from '../../shared/models/reaction';
import { recordLayout } from '../../shared/store/layout/index-build';
import { updateRecordById } from '../../shared/store/records';
import { REQUEST_ATTRIBUTE, SUBJECT_ATTRIBUTE } from '../../shared/store/table';
import { localOnly, type Reply, useApi } from '../support/api';
import { storedItems } from '../support/stored';
import { lambdaContext } from '../../scripts/local/event';

// Every record write carries, for the change feed (docs/feed.md), the request that made it and
// its caller's digest, and no read ever shows either. What is checked is the stored item after
// each kind of write, against the request id the answer names (apigw-requestid, Lambda's
// awsRequestId) and the digest of the token sent.
const WRITER = 'stamps-writer-token';
const OTHER = 'stamps-other-token';
process.env.API_TOKENS = JSON.stringify({ [WRITER]: ['read', 'write'], [OTHER]: ['read', 'write', 'admin'] });
const digestOf = (token: string) => `token:${createHash('sha256').update(token).digest('base64url').slice(0, 32)}`;

const api = useApi();
beforeAll(async () => {
  await recordLayout(reaction);
});
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const post = async (path: string, body: unknown, token = WRITER): Promise<Reply & { requestId: string }> => {
  const reply = await api.post(path, body, as(token));
  expect([200, 201]).toContain(reply.status);
  return { ...reply, requestId: reply.headers.get('apigw-requestid')! };
};
const route = (op: string) => `/api/db/reaction/${op}`;

async function stampOf(id: string): Promise<[unknown, unknown, unknown]> {
  const item = (await storedItems(reaction)).find((i) => i.id === id);
  return [item?.[REQUEST_ATTRIBUTE], item?.[SUBJECT_ATTRIBUTE], item?._version];
}

test('every kind of record write stamps its request and caller, replacing the last writer stamps', async () => {
  const one = await post(route('create'), { data: { user_id: 1, content: 'one' }, id: 's-one' });
  expect(await stampOf('s-one')).toEqual([one.requestId, digestOf(WRITER), 1]);

  const batch = await post(route('create'), {
    data: [
      { user_id: 2, content: 'b' },
      { user_id: 2, content: 'b' },
    ],
    ids: ['s-b1', 's-b2'],
  });
  for (const id of ['s-b1', 's-b2']) expect(await stampOf(id)).toEqual([batch.requestId, digestOf(WRITER), 1]);

  // The bulk path (read, then a conditional write per record), by another caller: its stamps replace the creator's.
  const bulk = await post(route('update'), { filters: { user_id: 2 }, values: { content: 'bulk' } }, OTHER);
  for (const id of ['s-b1', 's-b2']) expect(await stampOf(id)).toEqual([bulk.requestId, digestOf(OTHER), 2]);

  // The one-write path: an id and a field that is not indexed.
  const inPlace = await post(route('update'), { filters: { id: 's-one' }, values: { $set: { user_name: 'ann' } } });
  expect(await stampOf('s-one')).toEqual([inPlace.requestId, digestOf(WRITER), 2]);

  const upsertMade = await post(route('update'), { filters: { id: 's-up' }, values: { $set: { user_id: 3, content: 'up' } }, upsert: true });
  expect(await stampOf('s-up')).toEqual([upsertMade.requestId, digestOf(WRITER), 1]);
  const upsertUpdated = await post(route('update'), { filters: { id: 's-up' }, values: { $inc: { user_id: 1 } }, upsert: true }, OTHER);
  expect(await stampOf('s-up')).toEqual([upsertUpdated.requestId, digestOf(OTHER), 2]);

  const transaction = await post('/api/db/transaction', {
    operations: [
      { op: 'create', model: 'reaction', id: 's-tx', data: { user_id: 4, content: 'tx' } },
      { op: 'update', model: 'reaction', id: 's-up', values: { content: 'tx' } },
    ],
  });
  expect(await stampOf('s-tx')).toEqual([transaction.requestId, digestOf(WRITER), 1]);
  expect(await stampOf('s-up')).toEqual([transaction.requestId, digestOf(WRITER), 3]);
});

// The store's own writes, made in this process: through the bundles, only requests write.
localOnly('a write no caller asked for stamps null, leaving no earlier caller standing', async () => {
  // The OneBot receiver's bot status is one: its invocation has a request but no caller.
  await withinInvocation(lambdaContext('onebot', 'service-request'), () => updateRecordById(reaction, { id: 's-up', values: { user_name: 'svc' } }));
  expect(await stampOf('s-up')).toEqual(['service-request', null, 4]);
  // Outside any invocation (a script), neither is stamped.
  await updateRecordById(reaction, { id: 's-one', values: { user_name: 'script' } });
  expect(await stampOf('s-one')).toEqual([null, null, 3]);
});

localOnly('a caller named inside one invocation stamps nothing outside it', async () => {
  await withinInvocation(lambdaContext('update', 'inner'), async () => servingCaller('token:inner'));
  await updateRecordById(reaction, { id: 's-tx', values: { user_name: 'after' } });
  expect((await stampOf('s-tx')).slice(0, 2)).toEqual([null, null]);
});

test('no read shows the stamps', async () => {
  const hidden = [REQUEST_ATTRIBUTE, SUBJECT_ATTRIBUTE];
  const got = await post(route('get_one'), { filters: { id: 's-one' } });
  expect(Object.keys(got.body.data).filter((k) => hidden.includes(k))).toEqual([]);
  const listed = await post(route('list'), { limit: 100 });
  expect(listed.body.data.items.length).toBeGreaterThan(3);
  for (const item of listed.body.data.items) expect(Object.keys(item).filter((k) => hidden.includes(k))).toEqual([]);
  // Nor can a caller ask for them or filter on them.
  expect((await api.post(route('list'), { fields: [REQUEST_ATTRIBUTE] }, as(WRITER))).status).toBe(400);
  expect((await api.post(route('list'), { filters: { [SUBJECT_ATTRIBUTE]: digestOf(WRITER) } }, as(WRITER))).status).toBe(400);
});
