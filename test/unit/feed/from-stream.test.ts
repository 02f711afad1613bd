import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { changeOf } from '../../../shared/feed/from-stream';
import { changeSchema } from '../../../shared/feed/change';
import { servingCaller, withinInvocation } from '../../../shared/invocation';
import type { Model } from '../../../shared/models/define';
import { reaction } from '../../../shared/models/reaction';
import { storedItem } from '../../../shared/store/actions/create/item';
import { indexAttributes } from '../../../shared/store/keys';
import { layoutKey } from '../../../shared/store/layout/layout';
import type { Item } from '../../../shared/store/read/query';
import { leaseModel, ruledModel } from '../../support/models';

const ORG = ruledModel('feed_tenanted');
const LEASE = leaseModel('feed_lease');
jest.mock('../../../shared/models/catalog', () =>
  jest.requireActual('../../support/catalog-with').catalogWith(['feed_tenanted', 'feed_lease'], () => [ORG, LEASE]),
);

const NOW = '2026-11-27T08:00:00.000Z';
const COMMITTED = Date.parse('2026-11-27T08:00:01.000Z') / 1000;
const image = (item: Item | undefined) => (item === undefined ? undefined : (marshall(item, { removeUndefinedValues: true }) as never));
const streamRecord = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  old: Item | undefined,
  now: Item | undefined,
  extra: Partial<DynamoDBRecord> = {},
): DynamoDBRecord => ({
  eventID: `ev-${eventName}`,
  eventName,
  dynamodb: {
    ApproximateCreationDateTime: COMMITTED,
    // Every stream record carries its item's keys, as Lambda hands it over.
    Keys: image((now ?? old) ? { pk: (now ?? old)!.pk, sk: (now ?? old)!.sk } : undefined),
    OldImage: image(old),
    NewImage: image(now),
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
  ...extra,
});
const made = (model: Model = reaction, data: Record<string, unknown> = { user_id: 1, content: 'heart' }) =>
  withinInvocation({ awsRequestId: 'req-1' }, async () => {
    servingCaller('token:abc');
    return storedItem(model, { id: 'r1', data }, NOW, 'w1');
  });
const rewritten = (item: Item, data: Record<string, unknown>, stamps: Record<string, unknown>): Item => ({
  ...item,
  d: data,
  _version: Number(item._version) + 1,
  _updated_at: '2026-11-27T09:00:00.000Z',
  _w: 'w2',
  ...stamps,
});

test('an INSERT is a create: the record as the API answers it, its version, commit time, request and caller', async () => {
  const change = await changeOf(streamRecord('INSERT', undefined, await made()));
  expect(change).toEqual({
    change_id: 'ev-INSERT',
    model: 'reaction',
    id: 'r1',
    op: 'create',
    version: 1,
    time: '2026-11-27T08:00:01.000Z',
    after: { id: 'r1', user_id: 1, content: 'heart', _created_at: NOW, _updated_at: NOW, _version: 1 },
    request_id: 'req-1',
    subject: 'token:abc',
  });
  expect(changeSchema.parse(change)).toEqual(change);
});

test('a MODIFY is an update with both records; the request and caller are the new write’s', async () => {
  const first = await made();
  const second = rewritten(first, { user_id: 1, content: 'rocket' }, { _rq: 'req-2', _by: null });
  const change = await changeOf(streamRecord('MODIFY', first, second));
  expect(change).toMatchObject({
    op: 'update',
    version: 2,
    before: { content: 'heart', _version: 1 },
    after: { content: 'rocket', _version: 2 },
    request_id: 'req-2',
  });
  expect(change).not.toHaveProperty('subject');
});

test('a MODIFY that leaves the version as it was (the index build writing a slot’s keys) is no change', async () => {
  const item = await made();
  const filled = { ...item, ...indexAttributes(reaction, 'r1', item.d as Record<string, unknown>), g3pk: 'x', g3sk: 'y' };
  expect(await changeOf(streamRecord('MODIFY', item, filled))).toBeUndefined();
});

test('a REMOVE is a delete of the version deleted, with no request (the image is gone); one by TTL is marked expired', async () => {
  const item = rewritten(await made(), { user_id: 1, content: 'x' }, {});
  const deleted = await changeOf(streamRecord('REMOVE', item, undefined, { userIdentity: undefined }));
  expect(deleted).toMatchObject({ op: 'delete', version: 2, before: { id: 'r1', content: 'x' } });
  expect(Object.keys(deleted!).filter((k) => ['after', 'expired', 'request_id', 'subject'].includes(k))).toEqual([]);
  const ttl = { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } };
  expect(await changeOf(streamRecord('REMOVE', item, undefined, ttl))).toMatchObject({ op: 'delete', expired: true });
  // Another service principal is not TTL.
  const other = { userIdentity: { type: 'Service', principalId: 'other.amazonaws.com' } };
  expect(await changeOf(streamRecord('REMOVE', item, undefined, other))).not.toHaveProperty('expired');
});

test('expiry: a REMOVE of a record expired at the commit is an expiry, whoever deleted it; nothing else of an expired record is a change', async () => {
  const at = (until: number) => storedItem(LEASE, { id: 'r1', data: { holder: 'h', until } }, NOW, 'w1');
  const [expired, live] = [at(COMMITTED), at(COMMITTED + 1)];
  // The local sweeper deletes as any caller does: the old image's _ttl had passed at the commit.
  expect(await changeOf(streamRecord('REMOVE', expired, undefined))).toMatchObject({ op: 'delete', expired: true, before: { until: COMMITTED } });
  expect(await changeOf(streamRecord('REMOVE', live, undefined))).not.toHaveProperty('expired');
  // A write that leaves the record expired (made so, or created so) is not told; its expiry will be.
  expect(await changeOf(streamRecord('INSERT', undefined, expired))).toBeUndefined();
  expect(await changeOf(streamRecord('MODIFY', live, rewritten(live, { holder: 'h', until: COMMITTED }, { _ttl: COMMITTED })))).toBeUndefined();
  // A create that took the id of an expired record not yet deleted: a create, nothing of the record before.
  const taken = await changeOf(streamRecord('MODIFY', expired, storedItem(LEASE, { id: 'r1', data: { holder: 'new' } }, NOW, 'w2')));
  expect(taken).toMatchObject({ op: 'create', version: 1, after: { holder: 'new' } });
  expect(taken).not.toHaveProperty('before');
});

test('a record of a tenant model names its tenant, read from its key, whatever characters it holds', async () => {
  const item = await made(ORG, { url: 'u', org: 'acme\u0000\u0001x', status: 'new' });
  expect(await changeOf(streamRecord('INSERT', undefined, item))).toMatchObject({ model: 'feed_tenanted', tenant: 'acme\u0000\u0001x' });
  expect(await changeOf(streamRecord('INSERT', undefined, await made()))).not.toHaveProperty('tenant');
});

test('numbers come out exact, as the record API answers them', async () => {
  const big = new NumberValue('9007199254740993');
  const item = await made(reaction, { user_id: big, content: 'x' });
  const change = await changeOf(streamRecord('INSERT', undefined, item));
  expect(String(change?.after?.user_id)).toBe('9007199254740993');
});

test('the service’s own items, and items out of their model’s place, tell no change', async () => {
  const record = await made();
  const own: Item[] = [
    { ...layoutKey(reaction), version: 1, slots: [] },
    { pk: '_idempotency#token:abc', sk: 'key-1', token: 't', fp: 'f' },
    { pk: '#health', sk: '#health' },
    { ...record, pk: 'unknown_model#0' },
    { ...record, pk: 'reaction#7' },
    { pk: record.pk, sk: record.sk, id: 'r1' },
  ];
  for (const item of own) {
    for (const [name, old, now] of [
      ['INSERT', undefined, item],
      ['MODIFY', item, { ...item, version: 2, _version: 2 }],
      ['REMOVE', item, undefined],
    ] as const)
      expect(await changeOf(streamRecord(name, old, now))).toBeUndefined();
  }
});

test("an aggregate's items are no change, read or not: DynamoDB Local writes a counter's empty group map as {}, which no reader takes", async () => {
  const counter: DynamoDBRecord = {
    eventID: 'ev-counter',
    eventName: 'INSERT',
    dynamodb: {
      Keys: { pk: { S: 'reaction#aggregate#total' }, sk: { S: '=' } },
      NewImage: { pk: { S: 'reaction#aggregate#total' }, sk: { S: '=' }, c: { N: '1' }, g: {} as never },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
  expect(await changeOf(counter)).toBeUndefined();
});

test('a record whose stream lacks an image its op needs is refused loudly, never dropped', async () => {
  const item = await made();
  await expect(changeOf(streamRecord('MODIFY', undefined, { ...item, _version: 2 }))).rejects.toThrow(/NEW_AND_OLD_IMAGES/);
});
