import * as z from 'zod';
import { backfillAggregates } from '../../shared/aggregates/backfill';
import { countFromAggregate } from '../../shared/aggregates/count';
import { defineModel } from '../../shared/models/define';
import { recordLayout } from '../../shared/store/layout/index-build';
import { countRecords } from '../../shared/store/records';
import type { BenchContext } from './context';
import { range, seed } from './seed';

/** The bench model's records, counted per content (10 groups of 10% each) by a declared aggregate. */
const countedModel = () =>
  defineModel({
    name: 'cap_counted',
    description: 'benchmark data counted per content',
    schema: z.strictObject({ user_id: z.number(), user_name: z.string().optional(), content: z.string() }),
    indexed: ['user_id', 'content'],
    aggregates: { by_content: { group_by: ['content'], count: true } },
  });

export interface AggregateCount {
  records: number;
  /** Seconds the backfill took to count the records stored before the aggregate was declared. */
  backfillSeconds: number;
  rows: Array<{ how: string; count: number; scanned: number; capacity: number; billed: number }>;
}

/**
 * `count` of one declared group (issue 35): from the aggregate's counter, and from the records as
 * before. The records are stored first and the aggregate counted by the online backfill, the one
 * way counters of stored records are made (shared/aggregates/backfill.ts).
 */
export async function aggregateCount(ctx: BenchContext, records: number): Promise<AggregateCount> {
  const model = countedModel();
  await seed(model, range(0, records));
  await recordLayout(model);
  const started = performance.now();
  await backfillAggregates(model);
  const backfillSeconds = Math.round((performance.now() - started) / 100) / 10;
  const request = { filters: { content: 'c3' } };
  const rows: AggregateCount['rows'] = [];
  for (const [how, count] of [
    ['from the aggregate', () => countFromAggregate(model, request)],
    ['from the records (before issue 35, and consistent: true)', () => countRecords(model, { ...request, consistent: true })],
  ] as const) {
    let answer: { count: number; scanned: number } | undefined;
    const measured = await ctx.meter.measure(async () => {
      answer = await count();
    });
    if (!answer) throw new Error('count answered nothing from the aggregate: it is not ready');
    rows.push({ how, count: answer.count, scanned: answer.scanned, capacity: measured.capacity, billed: measured.billed });
  }
  if (rows[0].count !== rows[1].count) throw new Error(`the aggregate counted ${rows[0].count}, the records ${rows[1].count}`);
  return { records, backfillSeconds, rows };
}
