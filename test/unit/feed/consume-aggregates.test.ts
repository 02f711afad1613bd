import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import * as z from 'zod';
import type { RecordState } from '../../../shared/aggregates/apply';
import { checkSubscriptions } from '../../../shared/feed/check-subscriptions';
import { consumeStream } from '../../../shared/feed/consume';
import type { Delivery } from '../../../shared/feed/queue';
import { defineModel } from '../../../shared/models/define';
import { storedItem } from '../../../shared/store/actions/create/item';
import type { Item } from '../../../shared/store/read/query';

// The consumer hands each change of a model with aggregates to every aggregate (the state after
// it, or the state a delete removed) before any subscription gets it; a failed apply fails the
// record, as a refused delivery does. What applying does to the table: test/integration/aggregate-apply.test.ts.
const counted = defineModel({
  name: 'counted',
  description: 'test',
  schema: z.strictObject({ content: z.string(), score: z.number().optional() }),
  aggregates: { by_content: { group_by: ['content'], count: true }, total: { group_by: [], sum: ['score'] } },
});
jest.mock('../../../shared/models/catalog', () => jest.requireActual('../../support/catalog-with').catalogWith(['counted'], () => [counted]));

const applied: Array<{ aggregate: string; state: RecordState }> = [];
let failing = new Set<string>();
jest.mock('../../../shared/aggregates/apply', () => ({
  applyRecordState: async (_model: unknown, aggregate: string, state: RecordState) => {
    if (failing.has(`${state.id} ${state.version}`)) throw new Error('table out of reach');
    applied.push({ aggregate, state });
    return 'applied';
  },
}));

const CREATED = '2026-11-27T08:00:00.000Z';
const created = storedItem(counted, { id: 'r1', data: { content: 'a', score: 2 } }, CREATED, 'w1');
const updated: Item = { ...created, d: { content: 'b', score: 3 }, _version: 2 };

function record(n: number, eventName: 'INSERT' | 'MODIFY' | 'REMOVE', old: Item | undefined, now: Item | undefined): DynamoDBRecord {
  return {
    eventID: `ev${n}`,
    eventName,
    dynamodb: {
      Keys: marshall({ pk: created.pk, sk: created.sk }) as never,
      OldImage: old ? (marshall(old) as never) : undefined,
      NewImage: now ? (marshall(now) as never) : undefined,
      SequenceNumber: String(100 + n),
    },
  };
}
const stream = [record(0, 'INSERT', undefined, created), record(1, 'MODIFY', created, updated), record(2, 'REMOVE', updated, undefined)];

beforeEach(() => {
  applied.length = 0;
  failing = new Set();
});

test('each change reaches every aggregate: the state after a create or update, and for a delete the state it removed', async () => {
  const sent: Delivery[] = [];
  const answer = await consumeStream(stream, { subscriptions: [], queue: { send: async (d) => void sent.push(...d) } });
  expect(answer).toEqual({ batchItemFailures: [] });
  const state = (version: number, data?: Record<string, unknown>) => ({
    id: 'r1',
    sortKey: created.sk,
    createdAt: CREATED,
    version,
    ...(data ? { data } : {}),
  });
  expect(applied.map((a) => a.aggregate).sort()).toEqual(['by_content', 'by_content', 'by_content', 'total', 'total', 'total']);
  expect(applied.filter((a) => a.aggregate === 'by_content').map((a) => a.state)).toEqual([
    state(1, expect.objectContaining({ content: 'a', score: 2 })),
    state(2, expect.objectContaining({ content: 'b', score: 3 })),
    state(2),
  ]);
});

test('a failed apply fails its record before any subscription gets it, and the records after it of the same item wait', async () => {
  const subscriptions = await checkSubscriptions(
    JSON.stringify([{ name: 'all', models: ['counted'], url: 'https://h.test/all', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` }]),
  );
  const sent: Delivery[] = [];
  failing = new Set(['r1 2']);
  const answer = await consumeStream(stream, { subscriptions, queue: { send: async (d) => void sent.push(...d) } });
  expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '101' }] });
  expect(sent.map((d) => d.change.version)).toEqual([1]);
  expect(applied.map((a) => a.state.version)).toEqual([1, 1]);
});
