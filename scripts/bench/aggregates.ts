import * as z from 'zod';
import { applyRecordState } from '../../shared/aggregates/apply';
import { defineModel } from '../../shared/models/define';
import { itemKey } from '../../shared/store/keys';
import { TABLE_KEY } from '../../shared/store/table';
import type { BenchContext } from './context';
import type { Section } from './report';
import { round } from './stats';

/** Appliers at once: the change feed's consumer applies up to 16 items' changes at once (shared/feed/consume.ts ITEMS_AT_ONCE). */
const APPLIERS = 16;

let models = 0;

interface Run {
  layout: string;
  applies: number;
  perSecond: number;
  /** Commands sent per apply: a contribution read, and a write, sent again after each TransactionConflict. */
  transactionsPerApply: number;
  readsPerApply: number;
  /** Capacity the engine reported, per apply (DynamoDB Local and AWS report it; dynalite reports a put's, not a transaction's). */
  capacityPerApply: number;
}

/**
 * `applies` records created at once by APPLIERS appliers into one group (`hot`), or each into a
 * group of its own: what one hot counter takes, against the same work spread out.
 */
async function applyAtOnce(ctx: BenchContext, applies: number, hot: boolean): Promise<Run> {
  const model = defineModel({
    name: `bench_aggregate_${++models}`,
    description: 'aggregate bench model',
    schema: z.strictObject({ group: z.string(), score: z.number() }),
    shards: 4,
    aggregates: { by_group: { group_by: ['group'], count: true, sum: ['score'] } },
  });
  let next = 0;
  const started = performance.now();
  const { capacity, commands } = await ctx.meter.measure(() =>
    Promise.all(
      Array.from({ length: APPLIERS }, async () => {
        for (let i = next++; i < applies; i = next++) {
          const id = `r${i}`;
          await applyRecordState(model, 'by_group', {
            id,
            sortKey: itemKey(model, id, '')[TABLE_KEY.sortKey],
            createdAt: new Date(0).toISOString(),
            version: 1,
            data: { group: hot ? 'hot' : `g${i}`, score: i },
          });
        }
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const sent = (name: RegExp) => Object.entries(commands).reduce((sum, [command, n]) => sum + (name.test(command) ? n : 0), 0);
  return {
    layout: hot ? 'one hot group' : 'a group per record',
    applies,
    perSecond: round(applies / seconds),
    transactionsPerApply: round(sent(/^TransactWrite/) / applies),
    readsPerApply: round(sent(/^Get/) / applies),
    capacityPerApply: round(capacity / applies),
  };
}

/** Applies per second on one hot group against spread groups, with what each apply sends. */
export async function aggregatesBench(ctx: BenchContext): Promise<Section> {
  const applies = ctx.quick ? 64 : 2000;
  const runs = [await applyAtOnce(ctx, applies, false), await applyAtOnce(ctx, applies, true)];
  for (const r of runs) ctx.log(`aggregates, ${r.layout}: ${r.perSecond} applies/s, ${r.transactionsPerApply} transactions per apply`);
  const [spread, hot] = runs;
  return {
    id: 'aggregates',
    title: 'Keeping aggregates: one hot group',
    method: `
${applies} record creations applied to an aggregate (shared/aggregates/apply.ts applyRecordState,
as the change feed's consumer applies them) by ${APPLIERS} appliers at once, as many as the
consumer applies at once: each into a group of its own, then all into one group. Each apply
reads the record's contribution and sends one TransactWriteItems (the contribution and one
counter); in one group, transactions that meet on the counter are cancelled
(TransactionConflict) and sent again after a jittered pause, so the transactions sent per apply
say how often they met. The bench engine is dynalite; docs/record-api.md gives DynamoDB Local's
figures and DynamoDB's own limits.`,
    tables: [
      {
        columns: ['groups', 'applies', 'applies per second', 'transactions sent per apply', 'consistent reads per apply', 'capacity reported per apply'],
        rows: runs.map((r) => [r.layout, r.applies, r.perSecond, r.transactionsPerApply, r.readsPerApply, r.capacityPerApply]),
      },
    ],
    targets: [
      {
        what: 'applies per second on one hot group, against spread groups',
        measured: `${hot.perSecond} against ${spread.perSecond}`,
        target: 'reported (no goal)',
        met: null,
      },
    ],
    notes: [],
    data: { appliers: APPLIERS, runs },
  };
}
