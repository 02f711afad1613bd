import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { settings } from '../../shared/config';
import type { FilterNode } from '../../shared/store/filter/ast';
import { compileFilter } from '../../shared/store/filter/compile';
import { evaluate } from '../../shared/store/filter/evaluate';
import { ExpressionBuilder } from '../../shared/store/filter/expression';
import { db } from '../../shared/store/client';
import { toRecord } from '../../shared/store/read/projection';
import { createRecords } from '../../shared/store/records';
import { FIXED_RECORDS, filter, parsedOrRefused, recordData } from '../support/filter-arbitraries';
import { FUZZ, fuzzed } from '../support/fuzz';
import { fuzzModel } from '../support/models';
import { storedItems } from '../support/stored';

// The change feed matches subscriptions in memory (shared/store/filter/evaluate.ts); a record
// list answers with the engine's FilterExpression (shared/store/filter/compile.ts). Both must say
// the same of every record: random filters over random stored records, the engine asked directly
// (one Query of the partition, the compiled filter as is, no planner), on each engine.
const MODEL = fuzzModel('fuzz_evaluate', 1);
const RECORDS = [
  ...FIXED_RECORDS,
  ...fc.sample(recordData, { seed: FUZZ.seed + 40, numRuns: 40 }).map((data, i) => ({ id: `e${String(i).padStart(2, '0')}`, data })),
];

beforeAll(async () => {
  await createRecords(MODEL, { records: RECORDS }, { pathOf: (i) => ['data', i] });
});

async function engineMatches(node: FilterNode): Promise<string[]> {
  const x = new ExpressionBuilder();
  const compiled = compileFilter(node, x);
  const key = x.value(`${MODEL.name}#0`);
  const ids: string[] = [];
  let next: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: settings().TABLE_NAME,
        KeyConditionExpression: `${x.name('pk')} = ${key}`,
        ...(compiled === undefined ? {} : { FilterExpression: compiled }),
        ...x.attributes(),
        ConsistentRead: true,
        ExclusiveStartKey: next,
      }),
    );
    ids.push(...(page.Items ?? []).map((item) => item.id as string));
    next = page.LastEvaluatedKey;
  } while (next);
  return ids.sort();
}

test('evaluate answers as the engine FilterExpression does, record by record', async () => {
  const records = (await storedItems(MODEL)).map((item) => toRecord(item));
  expect(records).toHaveLength(RECORDS.length);
  let checked = 0;
  let matchedSome = 0;
  await fc.assert(
    fc.asyncProperty(filter, async (filters) => {
      const node = parsedOrRefused(MODEL, filters);
      if (node === undefined) return;
      checked += 1;
      const expected = records
        .filter((record) => evaluate(node, record))
        .map((record) => record.id)
        .sort();
      if (expected.length > 0 && expected.length < records.length) matchedSome += 1;
      expect(await engineMatches(node)).toEqual(expected);
    }),
    { ...fuzzed(600, 40), endOnFailure: true },
  );
  // The filters told records apart: not a run of all-or-nothing answers.
  expect(checked).toBeGreaterThan(300);
  expect(matchedSome).toBeGreaterThan(100);
}, 900_000);
