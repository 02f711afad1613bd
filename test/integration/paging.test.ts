import fc from 'fast-check';
import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { LIMITS } from '../../shared/limits';
import { compareForOrder } from '../support/filter-reference';
import { createRecords, deleteRecords, listRecords } from '../../shared/store/records';
import { useApi } from '../support/api';
import { fuzzed, fuzzTimeout } from '../support/fuzz';
import { noteModel } from '../support/models';

// Paging while others write (issue 19, finding 5): every shard resumes from the one position the
// cursor holds, so a record created between pages appears at its place in order, on any shard.
const SHARDS = [1, 4] as const;
const ORDERS = ['id', '-id', 'n', '-n'] as const;
const modelFor = (shards: number, order: string) =>
  defineModel({
    name: `paged_${shards}_${order.startsWith('-') ? 'desc' : 'asc'}_${order.replace('-', '')}`,
    description: 'paging under writes',
    schema: z.strictObject({ n: z.number().optional() }),
    indexed: ['n'],
    shards,
  });
const MODELS = new Map(SHARDS.flatMap((shards) => ORDERS.map((order) => [`${shards}:${order}`, modelFor(shards, order)] as const)));

jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  const byName = () => new Map([...MODELS.values()].map((m) => [m.name, m]));
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, ...byName().keys()],
    findModel: (name: string) => byName().get(name) ?? actual.findModel(name),
  };
});

const api = useApi();
const ids = (reply: { body: { data: { items: { id: string }[] } } }) => reply.body.data.items.map((r) => r.id);

describe.each(SHARDS)('%i shard(s): records created between pages appear at their place', (shards) => {
  // The repro: ids b and d, a page of one, then k, m and q are created (on 4 shards these land
  // in the two shards that held nothing). For -id the first ids are z and x, so that the new
  // records again sort after the first page and land in shards that held nothing. `n` holds the
  // records' values in that order (first ids, then created); `expected` the pages of one record.
  const CREATED = ['k', 'm', 'q'];
  const CASES: Record<(typeof ORDERS)[number], { first: string[]; n: number[]; expected: string }> = {
    id: { first: ['b', 'd'], n: [1, 2, 3, 4, 5], expected: 'b d k m q' },
    '-id': { first: ['z', 'x'], n: [1, 2, 3, 4, 5], expected: 'z x q m k' },
    n: { first: ['b', 'd'], n: [1, 2, 3, 4, 5], expected: 'b d k m q' },
    '-n': { first: ['b', 'd'], n: [9, 8, 7, 6, 5], expected: 'b d k m q' },
  };

  test.each(ORDERS)('order_by %s', async (order) => {
    const model = MODELS.get(`${shards}:${order}`)!;
    const path = (action: string) => `/api/db/${model.name}/${action}`;
    const { first, n, expected } = CASES[order];
    const create = (list: string[], values: number[]) => api.post(path('create'), { ids: list, data: values.map((v) => ({ n: v })) });
    expect((await create(first, n.slice(0, 2))).status).toBe(201);

    const pages: string[][] = [];
    let reply = await api.post(path('list'), { order_by: order, limit: 1 });
    pages.push(ids(reply));
    expect((await create(CREATED, n.slice(2))).status).toBe(201);
    while (reply.body.data.next_cursor !== null && pages.length <= n.length) {
      reply = await api.post(path('list'), { order_by: order, limit: 1, cursor: reply.body.data.next_cursor });
      expect(reply.status).toBe(200);
      if (reply.body.data.items.length > 0) pages.push(ids(reply));
    }
    expect(pages).toEqual(expected.split(' ').map((id) => [id]));
    expect(reply.body.data.next_cursor).toBeNull();
  });
});

describe('what paging promises, and what it does not', () => {
  const model = noteModel('paged_bounds', 4);
  const page = (cursor?: string) => listRecords(model, { limit: 2, cursor });
  const create = (...list: string[]) => createRecords(model, { records: list.map((id) => ({ id, data: { title: id } })) }, { pathOf: (i) => ['data', i] });

  test('a record created behind the position, and one deleted ahead of it, are not answered; the position survives the deletion of its own record', async () => {
    await create('c', 'e', 'g', 'i', 'k');
    const first = await page();
    expect(first.items.map((r) => r.id)).toEqual(['c', 'e']);
    await create('a', 'd', 'f');
    await deleteRecords(model, { filters: { id: { $in: ['e', 'g'] } } });
    const rest: string[] = [];
    let cursor = first.next_cursor;
    while (cursor) {
      const next = await page(cursor);
      rest.push(...next.items.map((r) => r.id));
      cursor = next.next_cursor;
    }
    expect(rest).toEqual(['f', 'i', 'k']);
  });
});

describe('property: pages stay exact while records are created and deleted between them', () => {
  const ORDER_FIELDS = ['id', '-id', 'rank', '-rank', 'title', '-title'];
  const id = fc.stringMatching(/^[a-h]{1,2}$/);
  const data = fc.record({
    title: fc.constantFrom('x', 'y', 'xy', 'z'),
    rank: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    done: fc.boolean(),
  });
  const records = fc.uniqueArray(fc.tuple(id, data), { selector: ([i]) => i, maxLength: 14 });
  // Between two pages: records to create (an id already present is skipped) and, by position in
  // the present ids, records to delete.
  const gap = fc.record({ create: records.map((r) => r.slice(0, 4)), remove: fc.uniqueArray(fc.nat(20), { maxLength: 3 }) });
  let run = 0;

  test(
    'each record present throughout appears once, in order; one created after a full page appears when it sorts after that page; a deleted one never appears after its deletion',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(1, 4),
          fc.constantFrom(...ORDER_FIELDS),
          fc.constantFrom(undefined, { done: true }),
          fc.integer({ min: 1, max: 4 }),
          // A small read budget cuts pages short with a cursor: the merge frontier path.
          fc.constantFrom(LIMITS.maxScannedPerRequest, 4, 9),
          records,
          fc.array(gap, { maxLength: 8 }),
          async (shards, order, filters, limit, budget, initial, gaps) => {
            const model = noteModel(`paged_prop_${run++}`, shards);
            const field = order.replace(/^-/, '');
            const sign = order.startsWith('-') ? -1 : 1;
            const stored = (r: { id: string; data: object }) => ({ id: r.id, d: r.data });
            const cmp = (a: { id: string; data: object }, b: { id: string; data: object }) => sign * compareForOrder(field, stored(a), stored(b));
            const matching = (r: { data: { done: boolean } }) => filters === undefined || r.data.done;

            type Rec = { id: string; data: { title: string; rank?: number; done: boolean } };
            const present = new Map<string, Rec>();
            const add = async (list: [string, Rec['data']][]) => {
              // A deleted id is not used again, so that an answer of it after its deletion is always wrong.
              const fresh = list.filter(([i]) => !present.has(i) && !gone.has(i)).map(([i, d]) => ({ id: i, data: d }));
              if (fresh.length === 0) return [];
              await createRecords(model, { records: fresh }, { pathOf: (i) => ['data', i] });
              for (const r of fresh) present.set(r.id, r);
              return fresh;
            };
            const gone = new Map<string, number>(); // id -> how many records had been answered when it was deleted
            await add(initial);
            const throughout = new Set(present.keys());
            const required = new Set<string>();

            const budgetSet = jest.replaceProperty(LIMITS, 'maxScannedPerRequest', budget as typeof LIMITS.maxScannedPerRequest);
            const answered: Rec[] = [];
            try {
              let cursor: string | undefined;
              let pages = 0;
              do {
                const page = await listRecords(model, { filters, order_by: order, limit, cursor });
                for (const r of page.items) {
                  const known = present.get(r.id);
                  expect(known && matching(known)).toBe(true);
                  answered.push(known!);
                }
                cursor = page.next_cursor ?? undefined;
                const between = gaps[pages++];
                if (!cursor || !between) continue;
                const last = answered[answered.length - 1];
                const full = page.items.length === limit;
                for (const r of await add(between.create)) {
                  // After a full page the position is its last record; a short page may have read further.
                  if (full && last && cmp(r, last) > 0) required.add(r.id);
                }
                const ids = [...present.keys()];
                const doomed = between.remove.map((i) => ids[i]).filter((i): i is string => i !== undefined);
                if (doomed.length > 0) {
                  await deleteRecords(model, { filters: { id: { $in: doomed } } });
                  for (const i of doomed) {
                    present.delete(i);
                    throughout.delete(i);
                    required.delete(i);
                    gone.set(i, answered.length);
                  }
                }
              } while (cursor && pages < 200);
              expect(cursor).toBeUndefined();
            } finally {
              budgetSet.restore();
            }

            const answeredIds = answered.map((r) => r.id);
            expect(new Set(answeredIds).size).toBe(answeredIds.length);
            for (let i = 1; i < answered.length; i++) expect(cmp(answered[i - 1], answered[i])).toBeLessThan(0);
            const mustAppear = [...present.values()].filter((r) => matching(r) && (throughout.has(r.id) || required.has(r.id)));
            for (const r of mustAppear) expect(answeredIds).toContain(r.id);
            answeredIds.forEach((i, at) => {
              if (gone.has(i)) expect(at).toBeLessThan(gone.get(i)!);
            });
          },
        ),
        { ...fuzzed(40, 195), endOnFailure: true },
      );
    },
    fuzzTimeout(120_000),
  );
});
