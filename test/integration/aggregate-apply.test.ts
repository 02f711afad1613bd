import fc from 'fast-check';
import * as z from 'zod';
import { type RecordState, applyRecordState } from '../../shared/aggregates/apply';
import { COUNT_ATTRIBUTE, GROUP_ATTRIBUTE, sumAttribute } from '../../shared/aggregates/items';
import { ONLY_GROUP, contributionKey, groupKey } from '../../shared/aggregates/keys';
import { STREAM_RETENTION_HOURS } from '../../shared/feed/stream/read';
import { epochSeconds } from '../../shared/store/expiry/ttl';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isExactNumber, numberText, toExactNumber } from '../../shared/json/exact-json';
import { defineModel, type Model } from '../../shared/models/define';
import { db } from '../../shared/store/client';
import { dataSpace, itemKey } from '../../shared/store/keys';
import { TABLE_KEY, TTL_ATTRIBUTE } from '../../shared/store/table';
import { counterItems } from '../support/aggregate-counters';

/*
 * applyRecordState against the engine itself, both engines: what a state does to the counters
 * (shared/aggregates/apply.ts), whatever order, repetition or concurrency the states arrive in.
 * The counters must always equal a recount of each record's newest state.
 */

let models = 0;
/** A fresh model (its own counters), grouped by `content`, summing the exact decimal `score`. */
function scoreModel(shards = 2) {
  return defineModel({
    name: `agg_${++models}`,
    description: 'aggregate test model',
    schema: z.strictObject({ content: z.string().optional(), score: z.number().optional(), tenant: z.string().optional() }),
    shards,
    aggregates: { by_content: { group_by: ['content'], count: true, sum: ['score'] }, total: { group_by: [], sum: ['score'] } },
  });
}

const CREATED = '2026-11-27T10:00:00.000Z';
const state = (model: Model, id: string, version: number, data?: Record<string, unknown>, createdAt = CREATED): RecordState => ({
  id,
  sortKey: itemKey(model, id, '')[TABLE_KEY.sortKey],
  createdAt,
  version,
  ...(data === undefined ? {} : { data }),
});

interface Counter {
  count: number;
  sum?: string;
  group: unknown;
}

/** Every counter of an aggregate as stored, by group key: count, the score's sum (number text), the group's values. */
async function counters(model: Model, aggregate: string): Promise<Record<string, Counter>> {
  const found: Record<string, Counter> = {};
  for (const item of await counterItems(db(), process.env.TABLE_NAME!, model, aggregate)) {
    const sum = item[sumAttribute('score')];
    found[item[TABLE_KEY.sortKey] as string] = {
      count: Number(item[COUNT_ATTRIBUTE] ?? 0),
      ...(isExactNumber(sum) ? { sum: numberText(sum) } : {}),
      group: item[GROUP_ATTRIBUTE],
    };
  }
  return found;
}

/** Exact decimals with up to 6 fractional digits, as scaled integers: the reference sums apart from the code's decimal arithmetic. */
const SCALE = 6;
const scaled = (text: string): bigint => {
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const value = BigInt(whole + fraction.padEnd(SCALE, '0'));
  return text.startsWith('-') ? -value : value;
};
const unscaled = (value: bigint): string => {
  const digits = (value < 0n ? -value : value).toString().padStart(SCALE + 1, '0');
  const fraction = digits.slice(-SCALE).replace(/0+$/, '');
  return `${value < 0n ? '-' : ''}${digits.slice(0, -SCALE)}${fraction ? `.${fraction}` : ''}`;
};

/** The recount: each record's last state, grouped by content (groups it holds records in). */
function recount(last: ReadonlyArray<RecordState>): Record<string, { count: number; sum: bigint }> {
  const groups: Record<string, { count: number; sum: bigint }> = {};
  for (const s of last) {
    if (!s.data) continue;
    const key = groupKey([s.data.content]);
    groups[key] ??= { count: 0, sum: 0n };
    const group = groups[key];
    group.count += 1;
    if (s.data.score !== undefined) group.sum += scaled(numberText(s.data.score as number));
  }
  return groups;
}

/** The counters equal the recount; a group emptied on the way is left with count 0 and sum 0. */
async function expectRecount(model: Model, states: ReadonlyArray<RecordState>): Promise<void> {
  const stored = Object.entries(await counters(model, 'by_content')).map(
    ([key, c]) => [key, { count: c.count, sum: c.sum === undefined ? 0n : scaled(c.sum) }] as const,
  );
  expect(stored.filter(([, c]) => c.count === 0).map(([, c]) => c.sum)).toEqual(stored.filter(([, c]) => c.count === 0).map(() => 0n));
  expect(Object.fromEntries(stored.filter(([, c]) => c.count !== 0))).toEqual(recount(states));
}

describe('applying one state', () => {
  test('the same state twice counts once: the second is stale', async () => {
    const model = scoreModel();
    const created = state(model, 'r1', 1, { content: 'a', score: 2 });
    expect(await applyRecordState(model, 'by_content', created)).toBe('applied');
    expect(await applyRecordState(model, 'by_content', created)).toBe('stale');
    expect(await counters(model, 'by_content')).toEqual({ [groupKey(['a'])]: { count: 1, sum: '2', group: { content: 'a' } } });
  });

  test('a state older than the one applied changes nothing, moving between groups moves the count and the sum', async () => {
    const model = scoreModel();
    const v1 = state(model, 'r1', 1, { content: 'a', score: 2 });
    const v2 = state(model, 'r1', 2, { content: 'b', score: 5 });
    await applyRecordState(model, 'by_content', v1);
    expect(await applyRecordState(model, 'by_content', v2)).toBe('applied');
    expect(await applyRecordState(model, 'by_content', v1)).toBe('stale');
    expect(await counters(model, 'by_content')).toEqual({
      [groupKey(['a'])]: { count: 0, sum: '0', group: { content: 'a' } },
      [groupKey(['b'])]: { count: 1, sum: '5', group: { content: 'b' } },
    });
  });

  test('a state newer than any applied is applied even when the ones between never came', async () => {
    const model = scoreModel();
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, { content: 'a', score: 1 }));
    expect(await applyRecordState(model, 'by_content', state(model, 'r1', 7, { content: 'a', score: 4 }))).toBe('applied');
    expect(await counters(model, 'by_content')).toEqual({ [groupKey(['a'])]: { count: 1, sum: '4', group: { content: 'a' } } });
  });

  test('a delete takes the record out; its create redelivered after it stays out; a re-creation under the same id counts again', async () => {
    const model = scoreModel();
    const created = state(model, 'r1', 1, { content: 'a', score: 3 });
    await applyRecordState(model, 'by_content', created);
    expect(await applyRecordState(model, 'by_content', state(model, 'r1', 1))).toBe('applied');
    expect(await applyRecordState(model, 'by_content', created)).toBe('stale');
    expect(await counters(model, 'by_content')).toEqual({ [groupKey(['a'])]: { count: 0, sum: '0', group: { content: 'a' } } });
    // Made again later under the same id: its version starts at 1 again, its creation is later.
    const again = state(model, 'r1', 1, { content: 'b', score: 1 }, '2026-11-27T10:00:05.000Z');
    expect(await applyRecordState(model, 'by_content', again)).toBe('applied');
    expect(await applyRecordState(model, 'by_content', state(model, 'r1', 1))).toBe('stale');
    expect((await counters(model, 'by_content'))[groupKey(['b'])]).toEqual({ count: 1, sum: '1', group: { content: 'b' } });
  });

  test("a deleted record's contribution is taken away by the table's TTL only after any redelivery of its life could come; a live or re-created record's never", async () => {
    const model = scoreModel();
    const contribution = async () =>
      (await db().send(new GetCommand({ TableName: process.env.TABLE_NAME!, Key: contributionKey(model, 'by_content', 'r1', state(model, 'r1', 1).sortKey) })))
        .Item;
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, { content: 'a', score: 3 }));
    expect((await contribution())?.[TTL_ATTRIBUTE]).toBeUndefined();
    const deletedAt = epochSeconds();
    await applyRecordState(model, 'by_content', state(model, 'r1', 1));
    // The stream hands a record over again within its retention at most: the tombstone outlives that.
    expect(Number((await contribution())?.[TTL_ATTRIBUTE])).toBeGreaterThan(deletedAt + STREAM_RETENTION_HOURS * 3600);
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, { content: 'b' }, '2026-11-27T10:00:05.000Z'));
    expect((await contribution())?.[TTL_ATTRIBUTE]).toBeUndefined();
  });

  test('a record made again after a delete counts, though its create was stamped before the life it follows (a create that landed late)', async () => {
    const model = scoreModel();
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, { content: 'a', score: 1 }, '2026-11-27T10:00:05.000Z'));
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, undefined, '2026-11-27T10:00:05.000Z'));
    const late = state(model, 'r1', 1, { content: 'b', score: 2 }, '2026-11-27T10:00:01.000Z');
    expect(await applyRecordState(model, 'by_content', late)).toBe('applied');
    expect(await applyRecordState(model, 'by_content', late)).toBe('stale');
    expect(await applyRecordState(model, 'by_content', state(model, 'r1', 2, { content: 'c', score: 3 }, '2026-11-27T10:00:01.000Z'))).toBe('applied');
    // Handed over again from the delete on, as the stream does: the counters end as they were.
    for (const s of [
      state(model, 'r1', 1, undefined, '2026-11-27T10:00:05.000Z'),
      late,
      state(model, 'r1', 2, { content: 'c', score: 3 }, '2026-11-27T10:00:01.000Z'),
    ])
      await applyRecordState(model, 'by_content', s);
    expect(await counters(model, 'by_content')).toEqual({
      [groupKey(['a'])]: { count: 0, sum: '0', group: { content: 'a' } },
      [groupKey(['b'])]: { count: 0, sum: '0', group: { content: 'b' } },
      [groupKey(['c'])]: { count: 1, sum: '3', group: { content: 'c' } },
    });
  });

  test('a record without the grouped field counts in the group of missing values; one without the summed field adds nothing to the sum', async () => {
    const model = scoreModel();
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, { score: 2 }));
    await applyRecordState(model, 'by_content', state(model, 'r2', 1, { content: 'a' }));
    expect(await counters(model, 'by_content')).toEqual({
      [groupKey([undefined])]: { count: 1, sum: '2', group: { content: null } },
      [groupKey(['a'])]: { count: 1, group: { content: 'a' } },
    });
  });

  test('an update that changes no grouped or summed field writes no counter', async () => {
    const model = scoreModel();
    await applyRecordState(model, 'by_content', state(model, 'r1', 1, { content: 'a', score: 2, tenant: 'x' }));
    expect(await applyRecordState(model, 'by_content', state(model, 'r1', 2, { content: 'a', score: 2, tenant: 'y' }))).toBe('applied');
    // The contribution moved on all the same: the first state is stale now.
    expect(await applyRecordState(model, 'by_content', state(model, 'r1', 1, { content: 'b', score: 2 }))).toBe('stale');
    expect(await counters(model, 'by_content')).toEqual({ [groupKey(['a'])]: { count: 1, sum: '2', group: { content: 'a' } } });
  });

  test('sums are exact to the digit, as DynamoDB adds numbers: 38 significant digits, decimals without rounding', async () => {
    const model = scoreModel();
    const big = toExactNumber('1234567890123456789012345678901234567.8');
    await applyRecordState(model, 'total', state(model, 'r1', 1, { score: toExactNumber('0.1') }));
    await applyRecordState(model, 'total', state(model, 'r2', 1, { score: toExactNumber('0.2') }));
    expect((await counters(model, 'total'))[ONLY_GROUP].sum).toBe('0.3');
    await applyRecordState(model, 'total', state(model, 'r3', 1, { score: big }));
    expect((await counters(model, 'total'))[ONLY_GROUP].sum).toBe('1234567890123456789012345678901234568.1');
    // Out again, the sum is back to 0.3 to the digit.
    await applyRecordState(model, 'total', state(model, 'r3', 2));
    expect((await counters(model, 'total'))[ONLY_GROUP]).toEqual({ count: 2, sum: '0.3', group: undefined });
    // Moving an amount within one group adds the exact difference.
    await applyRecordState(model, 'total', state(model, 'r1', 2, { score: toExactNumber('18446744073709551617') }));
    expect((await counters(model, 'total'))[ONLY_GROUP].sum).toBe('18446744073709551617.2');
  });

  test("a tenant's records count in its own counters: one group's values in two tenants are two groups", async () => {
    const model = defineModel({
      name: `agg_${++models}`,
      description: 'aggregate test model with tenants',
      schema: z.strictObject({ content: z.string(), tenant: z.string().optional() }),
      tenant: { field: 'tenant', claim: 'tenant' },
      aggregates: { by_content: { group_by: ['content'], count: true } },
    });
    const inTenant = (tenant: string, id: string): RecordState => ({
      id,
      sortKey: itemKey(model, id, dataSpace(model, { tenant }))[TABLE_KEY.sortKey],
      createdAt: CREATED,
      version: 1,
      data: { content: 'a', tenant },
    });
    await applyRecordState(model, 'by_content', inTenant('acme', 'r1'));
    await applyRecordState(model, 'by_content', inTenant('acme', 'r2'));
    await applyRecordState(model, 'by_content', inTenant('zeta', 'r1'));
    const stored = await counters(model, 'by_content');
    expect(stored[`${dataSpace(model, { tenant: 'acme' })}${groupKey(['a'])}`]?.count).toBe(2);
    expect(stored[`${dataSpace(model, { tenant: 'zeta' })}${groupKey(['a'])}`]?.count).toBe(1);
  });
});

describe('applying many states at once', () => {
  test('concurrent appliers on one hot group lose no count: 60 records, each applied twice, 16 at once', async () => {
    const model = scoreModel(4);
    const states = Array.from({ length: 60 }, (_, i) => state(model, `r${i}`, 1, { content: 'hot', score: toExactNumber(`${i}.01`) }));
    // Sixteen appliers at once, as many as the change feed's consumer runs.
    const deliveries = [...states, ...states];
    const answers: string[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (deliveries.length > 0) answers.push(await applyRecordState(model, 'by_content', deliveries.shift()!));
      }),
    );
    expect(answers.filter((a) => a === 'applied')).toHaveLength(60);
    await expectRecount(model, states);
  });

  test("each record's states in commit order, handed over again from any earlier one, records at once, end at the recount of their last states", async () => {
    const groups = ['a', 'b', 'c', 'x'.repeat(300)];
    /** One record's life: states in order, its deletes and re-creations included. */
    const life = fc.array(
      fc.record({
        kind: fc.constantFrom('write', 'write', 'write', 'delete'),
        content: fc.option(fc.constantFrom(...groups), { nil: undefined }),
        score: fc.option(fc.tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 999_999 })), { nil: undefined }),
        // A creation stamped before the life it follows: a create that landed late.
        stamp: fc.integer({ min: -5, max: 5 }),
      }),
      { minLength: 1, maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(life, { minLength: 1, maxLength: 12 }), fc.infiniteStream(fc.nat()), async (lives, draws) => {
        const model = scoreModel(3);
        const it = draws[Symbol.iterator]();
        const histories = lives.map((steps, r) => {
          const history: RecordState[] = [];
          let createdAt = CREATED;
          let version = 0;
          let live = false;
          for (const step of steps) {
            if (step.kind === 'delete' && live) {
              history.push(state(model, `r${r}`, version, undefined, createdAt));
              live = false;
              continue;
            }
            if (!live) {
              // Another time than the life before (a life's creation names it), earlier or later.
              const before = createdAt;
              do createdAt = new Date(Date.parse(before) + step.stamp * 1000 + (it.next().value % 997)).toISOString();
              while (createdAt === before);
              version = 0;
              live = true;
            }
            version += 1;
            const score = step.score === undefined ? undefined : toExactNumber(unscaled(step.score[0] * 10n ** BigInt(SCALE) + BigInt(step.score[1])));
            history.push(
              state(
                model,
                `r${r}`,
                version,
                { ...(step.content === undefined ? {} : { content: step.content }), ...(score === undefined ? {} : { score }) },
                createdAt,
              ),
            );
          }
          return history;
        });
        // As the stream hands them over: each record's states in commit order, then again from an
        // earlier one (a failed batch read again, a restart from an older checkpoint), up to twice.
        const deliveries = histories.map((history) => {
          const out = [...history];
          for (let rewind = it.next().value % 3; rewind > 0; rewind--) out.push(...history.slice(it.next().value % history.length));
          return out;
        });
        // Records at once, eight at a time; one record's states one after another, as the consumer applies them.
        let next = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            for (let r = next++; r < deliveries.length; r = next++) for (const s of deliveries[r]) await applyRecordState(model, 'by_content', s);
          }),
        );
        await expectRecount(
          model,
          histories.map((h) => h.at(-1)!),
        );
      }),
      { numRuns: 12 },
    );
  });
});
