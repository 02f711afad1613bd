import * as z from 'zod';
import type { Change } from '../../shared/feed/change';
import { checkSubscriptions } from '../../shared/feed/check-subscriptions';
import { consumeStream } from '../../shared/feed/consume';
import type { Delivery } from '../../shared/feed/queue';
import { defineModel, type Model } from '../../shared/models/define';
import { buildIndexes, recordLayout } from '../../shared/store/layout/index-build';
import { createRecords } from '../../shared/store/records';
import { ruledModel } from '../support/models';
import { streamSoFar } from '../support/stream-records';

// The feed on models this file adds to the catalog, on the real stream: a tenant model's changes
// name their tenant; and a field indexed after records hold it, whose index build writes each
// stored record's new keys (a MODIFY in the stream under the version it read), tells nothing, as
// the API shows nothing new of the records. The model is swapped in the catalog as a restart with
// an edited model file would (test/integration/model-changes.test.ts).
const define = (indexed: Array<'a' | 'b'>): Model =>
  defineModel({ name: 'feed_evolving', description: 'a model that gains an index', schema: z.strictObject({ a: z.string(), b: z.string() }), indexed });
let current = define(['a']);
const TENANTED = ruledModel('feed_tenanted');
jest.mock('../../shared/models/catalog', () =>
  jest.requireActual('../support/catalog-with').catalogWith(['feed_evolving', 'feed_tenanted'], () => [current, TENANTED]),
);
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

async function changesOf(model: string): Promise<Change[]> {
  const subscriptions = await checkSubscriptions(JSON.stringify([{ name: 'one', models: [model], url: 'https://h.test/e', secret: SECRET }]));
  const queued: Delivery[] = [];
  expect(await consumeStream(await streamSoFar(), { subscriptions, queue: { send: async (d) => void queued.push(...d) } })).toEqual({ batchItemFailures: [] });
  return queued.map((d) => d.change);
}

test('a tenant model’s changes name the tenant each record is in, the same id in two tenants apart', async () => {
  await recordLayout(TENANTED);
  for (const org of ['acme', 'globex\u0000inc']) await createRecords(TENANTED, { records: [{ id: 'same', data: { url: `https://${org}.test`, org } }] });
  const changes = await changesOf('feed_tenanted');
  expect(changes.map((c) => [c.op, c.id, c.tenant, c.after?.org]).sort()).toEqual([
    ['create', 'same', 'acme', 'acme'],
    ['create', 'same', 'globex\u0000inc', 'globex\u0000inc'],
  ]);
});

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

  expect((await changesOf('feed_evolving')).map((c) => `${c.op} ${c.id} ${c.version}`).sort()).toEqual(['create x 1', 'create y 1', 'create z 1']);
});
