import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { checkSubscriptions } from '../../../shared/feed/check-subscriptions';
import { type BusEntry, consumeStream } from '../../../shared/feed/consume';
import type { Delivery } from '../../../shared/feed/queue';
import { reaction } from '../../../shared/models/reaction';
import { storedItem } from '../../../shared/store/actions/create/item';
import type { Item } from '../../../shared/store/read/query';
import { fuzzed } from '../../support/fuzz';

// The consumer against a model of the stream and its event source mapping: random writes of a few
// records become stream records; the queue and the bus refuse at random; the batch is read again
// from each failure the consumer reports, as Lambda does with ReportBatchItemFailures. Whatever
// fails, every subscription gets every change it matches, and one record's changes in commit order.
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const SUBSCRIPTIONS = JSON.stringify([
  { name: 'all', models: ['reaction'], url: 'https://h.test/all', secret: SECRET },
  { name: 'hearts', models: ['reaction'], filter: { content: 'heart' }, url: 'https://h.test/hearts', secret: SECRET },
  { name: 'creates', models: ['reaction'], ops: ['create'], url: 'https://h.test/creates', secret: SECRET },
  { name: 'bus-hearts', models: ['reaction'], filter: { content: 'heart' }, bus: 'default' },
]);
const IDS = ['r1', 'r2', 'r3'];

type Step = { id: string; content: string | undefined };
/** Stream records of the writes: a content for a create or an update, undefined for a delete (of a record that is there). */
function streamOf(steps: Step[]): DynamoDBRecord[] {
  const stored = new Map<string, Item>();
  const records: DynamoDBRecord[] = [];
  for (const { id, content } of steps) {
    const old = stored.get(id);
    if (content === undefined && !old) continue;
    const now =
      content === undefined
        ? undefined
        : old
          ? { ...old, d: { user_id: 1, content }, _version: Number(old._version) + 1 }
          : storedItem(reaction, { id, data: { user_id: 1, content } }, '2026-11-27T08:00:00.000Z', `w${records.length}`);
    if (now) stored.set(id, now);
    else stored.delete(id);
    const keyOf = (old ?? now)!;
    records.push({
      eventID: `ev${records.length}`,
      eventName: !old ? 'INSERT' : now ? 'MODIFY' : 'REMOVE',
      dynamodb: {
        Keys: marshall({ pk: keyOf.pk, sk: keyOf.sk }) as never,
        OldImage: old ? (marshall(old) as never) : undefined,
        NewImage: now ? (marshall(now) as never) : undefined,
        SequenceNumber: String(1000 + records.length),
        ApproximateCreationDateTime: 1_764_230_400,
      },
    });
  }
  return records;
}

/** What each subscription must get, per record id, in order: written from the subscriptions' meaning, not the code's. */
function expected(records: DynamoDBRecord[]): Map<string, string[]> {
  const want = new Map<string, string[]>();
  for (const r of records) {
    const op = r.eventName!;
    const image = (op === 'REMOVE' ? r.dynamodb!.OldImage : r.dynamodb!.NewImage) as Record<string, { M?: Record<string, { S?: string }>; S?: string }>;
    const heart = image.d.M!.content.S === 'heart';
    const id = image.id.S!;
    for (const [name, takes] of [
      ['all', true],
      ['hearts', heart],
      ['creates', op === 'INSERT'],
      ['bus-hearts', heart],
    ] as const)
      if (takes) want.set(`${name}/${id}`, [...(want.get(`${name}/${id}`) ?? []), r.eventID!]);
  }
  return want;
}

test('every matched change reaches its subscription once in the queue and in commit order per record, whatever fails', async () => {
  const subscriptions = await checkSubscriptions(SUBSCRIPTIONS);
  const step = fc.record({ id: fc.constantFrom(...IDS), content: fc.option(fc.constantFrom('heart', 'rocket'), { nil: undefined, freq: 4 }) });
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.infiniteStream(fc.boolean()), async (steps, faults) => {
      const records = streamOf(steps);
      let failuresLeft = 12;
      const fault = () => failuresLeft > 0 && faults.next().value && failuresLeft-- > 0;
      const queued = new Map<string, string[]>();
      const kept = new Set<string>();
      const queue = {
        async send(deliveries: ReadonlyArray<Delivery>) {
          // A send may take some of its deliveries and fail on the rest, as a batch to SQS can.
          for (const { subscription, change } of deliveries) {
            if (fault()) throw new Error('queue refused');
            if (kept.has(`${subscription}/${change.change_id}`)) continue;
            kept.add(`${subscription}/${change.change_id}`);
            queued.set(`${subscription}/${change.id}`, [...(queued.get(`${subscription}/${change.id}`) ?? []), change.change_id]);
          }
        },
      };
      const published = new Map<string, string[]>();
      const publish = async (entries: ReadonlyArray<BusEntry>) => {
        const failed: string[] = [];
        for (const entry of entries) {
          if (fault()) failed.push(entry.id);
          else
            published.set(`${entry.subscription}/${entry.change.id}`, [
              ...(published.get(`${entry.subscription}/${entry.change.id}`) ?? []),
              entry.change.change_id,
            ]);
        }
        return failed;
      };
      // The event source mapping: the batch again from the failure reported, until none is.
      let from = 0;
      for (let rounds = 0; from < records.length; rounds++) {
        expect(rounds).toBeLessThan(100);
        const { batchItemFailures } = await consumeStream(records.slice(from), { subscriptions, queue, publish });
        if (batchItemFailures.length === 0) break;
        expect(batchItemFailures).toHaveLength(1);
        const at = records.findIndex((r) => r.dynamodb!.SequenceNumber === batchItemFailures[0].itemIdentifier);
        expect(at).toBeGreaterThanOrEqual(from);
        from = at;
      }
      const want = expected(records);
      const webhooks = new Map([...want].filter(([key]) => !key.startsWith('bus-')));
      expect(new Map([...queued].sort())).toEqual(new Map([...webhooks].sort()));
      // A bus has no dedupe: a change may arrive again, but each arrives, the first time in order.
      const firsts = new Map([...published].map(([key, ids]) => [key, [...new Set(ids)]]));
      expect(new Map([...firsts].sort())).toEqual(new Map([...want].filter(([key]) => key.startsWith('bus-')).sort()));
    }),
    fuzzed(300, 70),
  );
});

test('a record no subscription matches is passed over; an empty batch has no failure', async () => {
  const subscriptions = await checkSubscriptions(SUBSCRIPTIONS);
  const sent: Delivery[] = [];
  const queue = { send: async (d: ReadonlyArray<Delivery>) => void sent.push(...d) };
  expect(await consumeStream([], { subscriptions, queue, publish: async () => [] })).toEqual({ batchItemFailures: [] });
  const [create] = streamOf([{ id: 'r1', content: 'rocket' }]);
  expect(await consumeStream([create], { subscriptions: subscriptions.filter((s) => s.name === 'hearts'), queue })).toEqual({ batchItemFailures: [] });
  expect(sent).toEqual([]);
});

test('an EventBridge subscription without a publisher is refused before anything is handed on', async () => {
  const subscriptions = await checkSubscriptions(SUBSCRIPTIONS);
  const queue = { send: jest.fn(async () => {}) };
  await expect(consumeStream(streamOf([{ id: 'r1', content: 'heart' }]), { subscriptions, queue })).rejects.toThrow(/publisher/);
  expect(queue.send).not.toHaveBeenCalled();
});
