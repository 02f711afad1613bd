import * as z from 'zod';
import { checkSubscriptions } from '../../shared/feed/check-subscriptions';
import { consumeStream } from '../../shared/feed/consume';
import type { Delivery } from '../../shared/feed/queue';
import { defineModel, type Model } from '../../shared/models/define';
import { buildIndexes, recordLayout } from '../../shared/store/layout/index-build';
import { createRecords } from '../../shared/store/records';
import { streamSoFar } from '../support/stream-records';

// A field indexed after records hold it: the index build writes each stored record's new keys
// (a MODIFY in the stream under the version it read). The API shows nothing new of the records,
// and the feed tells nothing of it. The model is swapped in the catalog as a restart with an
// edited model file would (test/integration/model-changes.test.ts).
const define = (indexed: Array<'a' | 'b'>): Model =>
  defineModel({ name: 'feed_evolving', description: 'a model that gains an index', schema: z.strictObject({ a: z.string(), b: z.string() }), indexed });
let current = define(['a']);
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/catalog-with').catalogWith(['feed_evolving'], () => [current]));

test('the index build filling a new index into stored records is in the stream, and tells no change', async () => {
  await recordLayout(current);
  await createRecords(current, { records: ['x', 'y', 'z'].map((id) => ({ id, data: { a: id, b: id } })) }, { pathOf: (i) => ['records', i] });
  current = define(['a', 'b']);
  expect((await buildIndexes(current)).filled).toBe(3);

  const records = await streamSoFar();
  const ofModel = records.filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('feed_evolving#'));
  // What the build wrote: a MODIFY per record, its version as it was.
  const built = ofModel.filter((r) => r.eventName === 'MODIFY');
  expect(built).toHaveLength(3);
  for (const r of built) expect(r.dynamodb?.NewImage?._version).toEqual(r.dynamodb?.OldImage?._version);

  const subscriptions = await checkSubscriptions(
    JSON.stringify([{ name: 'evolving', models: ['feed_evolving'], url: 'https://h.test/e', secret: `whsec_${Buffer.alloc(32, 3).toString('base64')}` }]),
  );
  const queued: Delivery[] = [];
  expect(await consumeStream(records, { subscriptions, queue: { send: async (d) => void queued.push(...d) } })).toEqual({ batchItemFailures: [] });
  expect(queued.map((d) => `${d.change.op} ${d.change.id} ${d.change.version}`).sort()).toEqual(['create x 1', 'create y 1', 'create z 1']);
});
