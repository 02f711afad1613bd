import { DynamoDBDocumentClient, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { toExactNumber } from '../../shared/json/exact-json';
import { db } from '../../shared/store/client';
import { parseOrder, planAccess } from '../../shared/store/read/plan';
import { queryInput } from '../../shared/store/read/query';
import { createRecords } from '../../shared/store/records';
import { adminClient, prepareTable } from '../../scripts/local/engine';
import { FIXED_RECORDS, filter, orderBy, parsedOrRefused, recordData } from '../support/filter-arbitraries';
import { FUZZ, fuzzed } from '../support/fuzz';
import { fuzzModel } from '../support/models';
import { tableSnapshot } from '../support/table-snapshot';

// The same compiled Query, sent to dynalite and to DynamoDB Local over the same items, must
// get the same answer: any future divergence of the embedded engine shows up here at once.
// It runs once, in the dynalite project, when the run also started DynamoDB Local (Java).
const other = process.env.RG_TEST_DDBLOCAL_ENDPOINT;
const describeBoth = process.env.RG_TEST_ENGINE === 'dynalite' && other ? describe : describe.skip;

describeBoth('dynalite and DynamoDB Local', () => {
  const model = fuzzModel('agree', 3);
  let local: DynamoDBDocumentClient;

  beforeAll(async () => {
    await prepareTable(other!, process.env.TABLE_NAME!);
    local = DynamoDBDocumentClient.from(adminClient(other!), { unmarshallOptions: { wrapNumbers: toExactNumber } });
    const generated = fc.sample(recordData, { seed: FUZZ.seed + 2, numRuns: 30 }).map((data, i) => ({ id: `g${i}`, data }));
    await createRecords(model, { records: [...FIXED_RECORDS, ...generated] }, { pathOf: (i) => ['data', i] });
    for (const item of await tableSnapshot()) await local.send(new PutCommand({ TableName: process.env.TABLE_NAME, Item: item }));
  });

  afterAll(() => local.destroy());

  async function answer(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<{ ids: string[]; count: number }> {
    const ids: string[] = [];
    let count = 0;
    let next: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: next }));
      ids.push(...(page.Items ?? []).map((item) => item.id as string));
      count += page.Count ?? 0;
      next = page.LastEvaluatedKey;
    } while (next);
    return { ids, count };
  }

  test('answer every generated filter alike, in every order', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(filter, orderBy, async (filters, order) => {
        const node = parsedOrRefused(model, filters);
        if (node === undefined) return;
        const plan = planAccess(model, node, parseOrder(model, order));
        for (const shard of plan.shards) {
          const input = queryInput({ plan, filter: node }, shard);
          expect(await answer(local, input)).toEqual(await answer(db(), input));
          compared += 1;
        }
      }),
      { ...fuzzed(60, 3), endOnFailure: true },
    );
    expect(compared).toBeGreaterThan(100);
  }, 1_800_000);
});
