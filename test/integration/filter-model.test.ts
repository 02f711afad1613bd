import fc from 'fast-check';
import { classify } from '../../shared/answer/respond';
import type { Model } from '../../shared/models/define';
import { StoreError } from '../../shared/store/errors';
import { parseFilter } from '../../shared/store/filter/parse';
import { compareForOrder, matches, type Item } from '../support/filter-reference';
import { parseOrder, planAccess } from '../../shared/store/read/plan';
import { countRecords, createRecords, getOneRecord, listRecords, type ApiRecord } from '../../shared/store/records';
import { deleteWhole, updateWhole } from '../support/whole-bulk';
import { FIXED_RECORDS, filter, orderBy, recordData } from '../support/filter-arbitraries';
import { FUZZ, fuzzed } from '../support/fuzz';
import { fuzzModel } from '../support/models';
import { storedItems } from '../support/stored';

// Every answer of list (all pages), count, get_one, update and delete is compared with the
// reference model (test/support/filter-reference.ts) over the records as stored, on one
// shard and on three (the sharded merge), through every planner path.
const MODELS = [fuzzModel('fuzz_one', 1), fuzzModel('fuzz_three', 3)];
const RECORDS = [
  ...FIXED_RECORDS,
  ...fc.sample(recordData, { seed: FUZZ.seed, numRuns: 34 }).map((data, i) => ({ id: `g${String(i).padStart(2, '0')}`, data })),
];

beforeAll(async () => {
  for (const model of MODELS) await createRecords(model, { records: RECORDS }, { pathOf: (i) => ['data', i] });
});

type Parsed = { ok: true; node: ReturnType<typeof parseFilter> } | { ok: false; code: string };

function parse(model: Model, filters: unknown): Parsed {
  try {
    return { ok: true, node: parseFilter(model, filters) };
  } catch (error) {
    if (error instanceof StoreError) return { ok: false, code: classify(error).code };
    throw error;
  }
}

async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof StoreError) return classify(error).code;
    throw error;
  }
}

async function everyPage(model: Model, filters: unknown, order: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRecords(model, { filters, order_by: order, limit, cursor });
    ids.push(...page.items.map((r: ApiRecord) => r.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

function expectedIds(items: Item[], node: ReturnType<typeof parseFilter>, order = 'id'): string[] {
  const { field, descending } = { field: order.replace(/^-/, ''), descending: order.startsWith('-') };
  const sorted = items.filter((item) => matches(node, item)).sort((a, b) => compareForOrder(field, a, b));
  return (descending ? sorted.reverse() : sorted).map((item) => item.id as string);
}

/** Which planner paths the generated filters reached; each must be reached at least once. */
const reached = new Set<string>();
function notePath(model: Model, node: ReturnType<typeof parseFilter>, order: string): void {
  const plan = planAccess(model, node, parseOrder(model, order));
  reached.add(
    plan.indexName
      ? plan.exact
        ? 'index key only'
        : 'index + filter'
      : plan.shards.length === 1 && model.shards > 1
        ? 'point'
        : plan.exact
          ? 'partition key only'
          : 'partition + filter',
  );
  if (plan.shards.length > 1) reached.add('sharded merge');
}

let checked = 0;

/** One filter per planner path, so that each is reached whatever the seed draws. */
const PLANNER_PATHS: Array<[Record<string, unknown>, string, number]> = [
  [{ s: 'a' }, 'id', 3], // index equality, key only
  [{ n: { $gt: 0 } }, '-n', 2], // index range, key only
  [{ s: 'q'.repeat(200) }, 's', 1], // a long operand: index range, filter re-checks
  [{ id: 't1-200' }, 'id', 1], // point read
  [{ id: { $gt: 't4' } }, '-id', 2], // id range, key only
  [{ flag: false }, 'mix', 3], // filter only, ordered through an index
];

test.each(MODELS.map((m) => [m.name, m]))(
  'list, count and get_one answer what the reference model says (%s)',
  async (_, model) => {
    const items = await storedItems(model);
    await fc.assert(
      fc.asyncProperty(filter, orderBy, fc.constantFrom(1, 3, 7, 100), async (filters, order, limit) => {
        const parsed = parse(model, filters);
        if (!parsed.ok) {
          expect(await refusal(countRecords(model, { filters }))).toBe(parsed.code);
          return;
        }
        checked += 1;
        notePath(model, parsed.node, order);
        const expected = expectedIds(items, parsed.node, order);
        expect(await everyPage(model, filters, order, limit)).toEqual(expected);
        expect((await countRecords(model, { filters })).count).toBe(expected.length);
        const first = expectedIds(items, parsed.node)[0];
        if (first === undefined) expect(await refusal(getOneRecord(model, { filters }))).toBe('not_found');
        else expect((await getOneRecord(model, { filters })).id).toBe(first);
      }),
      { ...fuzzed(70, 0), endOnFailure: true, examples: PLANNER_PATHS },
    );
  },
  1_800_000,
);

test.each(MODELS.map((m) => [m.name, m]))(
  'update and delete change exactly the records the model matches (%s)',
  async (_, model) => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(filter, async (filters) => {
        const parsed = parse(model, filters);
        if (!parsed.ok) return;
        checked += 1;
        notePath(model, parsed.node, 'id');
        const before = await storedItems(model);
        const expected = expectedIds(before, parsed.node);
        const mark = `run${run++}`;
        const updated = await updateWhole(model, { filters, values: { mark }, allow_all: true });
        expect(updated.changed).toBe(expected.length);
        const marked = (await storedItems(model)).filter((item) => (item.d as { mark?: string }).mark === mark).map((item) => item.id);
        expect(marked.sort()).toEqual([...expected].sort());

        // The update may have changed what matches (_version, for one): the model reads the table again.
        const updatedItems = await storedItems(model);
        const doomed = expectedIds(updatedItems, parsed.node);
        const deleted = await deleteWhole(model, { filters, allow_all: true });
        expect(deleted.changed).toBe(doomed.length);
        const left = new Set((await storedItems(model)).map((item) => item.id));
        const removed = updatedItems.filter((item) => !left.has(item.id));
        expect(removed.map((item) => item.id).sort()).toEqual([...doomed].sort());
        // Put them back for the next run.
        if (removed.length > 0)
          await createRecords(model, { records: removed.map((item) => ({ id: item.id as string, data: item.d })) }, { pathOf: (i) => ['data', i] });
      }),
      { ...fuzzed(12, 1), endOnFailure: true },
    );
  },
  1_800_000,
);

test('the generated filters reached every planner path', () => {
  expect([...reached].sort()).toEqual(['index + filter', 'index key only', 'partition + filter', 'partition key only', 'point', 'sharded merge'].sort());
  expect(checked).toBeGreaterThan(100);
  console.log(`filter model: ${checked} generated filters checked on ${process.env.RG_TEST_ENGINE}, seed ${FUZZ.seed}`);
});
