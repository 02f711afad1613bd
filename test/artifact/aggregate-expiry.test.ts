import { accessOf } from '../../infra/access';
import { applyRecordState } from '../../shared/aggregates/apply';
import { COUNT_ATTRIBUTE } from '../../shared/aggregates/items';
import { groupKey, ONLY_GROUP } from '../../shared/aggregates/keys';
import type { DynamoAction } from '../../shared/manifest/functions';
import { db } from '../../shared/store/client';
import { epochSeconds } from '../../shared/store/expiry/ttl';
import { itemKey } from '../../shared/store/keys';
import { TABLE_KEY } from '../../shared/store/table';
import { counterItems } from '../support/aggregate-counters';
import { startArtifactApi, type ArtifactApi } from '../support/artifact/api';
import { useClock } from '../support/clock';
import { testModel } from '../support/test-catalog';

// functions/aggregate_expiry as Lambda runs it, from its bundle built with the test models (a
// stack serving `lease_tally`, which has a ttl and aggregates, deploys it; the shipped cdk.out
// does not), on a schedule event and the test's moved clock (test/support/artifact/sandbox.ts):
// the records counted with a ttl now past leave their groups, and it sends only what it is granted.
const clock = useClock();
const model = testModel('lease_tally');
let service: ArtifactApi;

beforeAll(async () => {
  service = await startArtifactApi({ engine: process.env.DYNAMODB_ENDPOINT!, table: process.env.TABLE_NAME!, secrets: () => undefined, testModels: true });
});
afterAll(async () => {
  await service?.stop();
});

const counts = async (aggregate: string) =>
  Object.fromEntries(
    (await counterItems(db(), process.env.TABLE_NAME!, model, aggregate)).map((item) => [item[TABLE_KEY.sortKey], Number(item[COUNT_ATTRIBUTE])]),
  );

test('on its schedule it takes the records expired by now out of their groups, sending only the actions it is granted', async () => {
  const HOUR = 3_600;
  const now = epochSeconds();
  const states = [
    { id: 'soon', data: { holder: 'a', until: now + HOUR, n: 1 } },
    { id: 'later', data: { holder: 'a', until: now + 10 * HOUR, n: 2 } },
    { id: 'never', data: { holder: 'b', n: 3 } },
  ];
  for (const { id, data } of states)
    for (const aggregate of Object.keys(model.aggregates))
      await applyRecordState(model, aggregate, {
        id,
        sortKey: itemKey(model, id)[TABLE_KEY.sortKey],
        createdAt: new Date().toISOString(),
        version: 1,
        data,
        ...(data.until === undefined ? {} : { ttl: data.until }),
      });
  expect(await counts('all')).toEqual({ [ONLY_GROUP]: 3 });

  clock.advance((HOUR + 60) * 1000);
  const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
  expect(await service.invoke('aggregate_expiry', scheduled)).toMatchObject({ kind: 'answer' });
  expect(await counts('all')).toEqual({ [ONLY_GROUP]: 2 });
  expect(await counts('by_holder')).toEqual({ [groupKey(['a'])]: 1, [groupKey(['b'])]: 1 });

  // A transaction is recorded as the actions it holds, as IAM governs it (test/support/artifact/recorder.ts).
  const sent = [...service.actionsSent.get('aggregate_expiry')!];
  expect(sent.filter((a) => !accessOf('aggregate_expiry').tableActions.includes(a as DynamoAction))).toEqual([]);
  expect(sent).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
});
