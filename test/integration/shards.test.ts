import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { countRecords, createRecords, listRecords, type ApiRecord } from '../../shared/store/records';
import { deleteWhole, updateWhole } from '../support/whole-bulk';
import { noteModel } from '../support/models';
import { storedItems } from '../support/stored';

// The store itself, on a model spread over 5 shards, through the same functions the handlers call.
const note = noteModel('sharded_note', 5);
const N = 230;
const rankOf = (i: number) => (i * 7) % 23; // many ties across shards
const data = (i: number) => ({
  title: `title ${String(i).padStart(3, '0')}`,
  ...(i % 10 === 0 ? {} : { rank: rankOf(i) }),
  meta: { author: { login: i % 2 === 0 ? 'even' : 'odd' }, stars: i },
  tags: i % 3 === 0 ? ['three'] : [],
});
const idOf = (i: number) => `n${String(i).padStart(4, '0')}`;

beforeAll(async () => {
  await createRecords(note, { records: Array.from({ length: N }, (_, i) => ({ id: idOf(i), data: data(i) })) }, { pathOf: (i) => ['data', i] });
});

async function pageThrough(request: Parameters<typeof listRecords>[1]): Promise<ApiRecord[]> {
  const all: ApiRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRecords(note, { ...request, cursor });
    all.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');

test('records really are spread over the shards', async () => {
  const items = await storedItems(note);
  const used = new Set(items.map((i) => i.pk));
  expect(used.size).toBe(5);
  expect(items).toHaveLength(N);
});

test('paging by id merges the shards in order, every record once', async () => {
  const expected = Array.from({ length: N }, (_, i) => idOf(i));
  expect((await pageThrough({ limit: 17 })).map((r) => r.id)).toEqual(expected);
  expect((await pageThrough({ limit: 31, order_by: '-id' })).map((r) => r.id)).toEqual([...expected].reverse());
});

test('paging by an indexed number field: missing first, ties by id, across shards', async () => {
  const got = await pageThrough({ limit: 13, order_by: 'rank' });
  const expected = Array.from({ length: N }, (_, i) => i)
    .sort((a, b) => {
      const ra = a % 10 === 0 ? -1 : rankOf(a);
      const rb = b % 10 === 0 ? -1 : rankOf(b);
      return ra - rb || Buffer.compare(utf8(idOf(a)), utf8(idOf(b)));
    })
    .map(idOf);
  expect(got.map((r) => r.id)).toEqual(expected);
});

test('filtered paging with a FilterExpression still returns exactly the matches in order', async () => {
  const got = await pageThrough({ limit: 9, filters: { 'meta.author.login': 'odd', rank: { $gte: 10 } }, order_by: '-rank' });
  const expected = Array.from({ length: N }, (_, i) => i)
    .filter((i) => i % 2 === 1 && i % 10 !== 0 && rankOf(i) >= 10)
    .sort((a, b) => rankOf(b) - rankOf(a) || Buffer.compare(utf8(idOf(b)), utf8(idOf(a))))
    .map(idOf);
  expect(got.map((r) => r.id)).toEqual(expected);
});

test('count is exact across shards, with and without filters', async () => {
  expect((await countRecords(note, {})).count).toBe(N);
  expect((await countRecords(note, { filters: { rank: 5 } })).count).toBe(
    Array.from({ length: N }, (_, i) => i).filter((i) => i % 10 !== 0 && rankOf(i) === 5).length,
  );
  expect((await countRecords(note, { filters: { tags: { $contains: 'three' } } })).count).toBe(Math.ceil(N / 3));
  expect((await countRecords(note, { filters: { 'meta.stars': { $gt: NumberValue.from('199') } } })).count).toBe(N - 200);
});

test('update and delete by filter reach every shard', async () => {
  const updated = await updateWhole(note, { filters: { 'meta.author.login': 'even' }, values: { done: true } });
  expect([updated.changed, updated.last.skipped, updated.last.complete]).toEqual([N / 2, 0, true]);
  expect((await countRecords(note, { filters: { done: true } })).count).toBe(N / 2);
  const deleted = await deleteWhole(note, { filters: { done: true } });
  expect(deleted.changed).toBe(N / 2);
  const left = await storedItems(note);
  expect(left).toHaveLength(N / 2);
  expect(left.every((i) => (i.d as { meta: { author: { login: string } } }).meta.author.login === 'odd')).toBe(true);
  // A loaded DynamoDB Local takes its time over 230 records and their cursor rounds; nothing here is timed.
}, 180_000);

test('a page reads about its own size, not a full page from every shard', async () => {
  // Runs after the deletes above: 115 records remain over 5 shards.
  const page = await listRecords(note, { limit: 50 });
  expect(page.items).toHaveLength(50);
  expect(page.scanned).toBeGreaterThanOrEqual(50);
  expect(page.scanned).toBeLessThanOrEqual(100);
  // A later page resumes every shard from the cursor's one position and reads no more.
  const second = await listRecords(note, { limit: 50, cursor: page.next_cursor! });
  expect(second.items).toHaveLength(50);
  expect(second.scanned).toBeLessThanOrEqual(100);
  const byIndex = await listRecords(note, { limit: 40, order_by: 'rank' });
  expect(byIndex.items).toHaveLength(40);
  expect(byIndex.scanned).toBeLessThanOrEqual(80);
});
