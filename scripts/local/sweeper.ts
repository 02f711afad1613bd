import { expireAggregates, expiresAggregates } from '../../shared/aggregates/expire';
import type { Model } from '../../shared/models/model';
import { type SweepPosition, sweepStep } from '../../shared/store/expiry/sweep';
import { epochSeconds } from '../../shared/store/expiry/ttl';

/**
 * What a round deletes: records expired before the current minute began. The change feed tells a
 * delete as an expiry when the record had expired by its stream record's time, which DynamoDB
 * Local stamps to the minute (rounded down): a record deleted in the minute it expired would be
 * told as a plain delete there. Hidden from every read since its second came all the same.
 */
const expiredBy = (): number => Math.floor(epochSeconds() / 60) * 60;

/**
 * How the local sweeper paces itself (docs/decisions.md, "Counts that do not read everything,
 * and records that expire"): every `everyMs` it reads at most `budget` items of each model with
 * a ttl field, going on from where it stopped, so an expired record is deleted within a minute
 * and one pass of its model after it expired (a pass: a model of up to budget × 60 000 / everyMs
 * records takes a minute), and no write pays anything for it. Models without a ttl field are never read.
 */
export const SWEEP = { everyMs: 5_000, budget: 1_000 } as const;

export interface Sweeper {
  /** Runs one round now (each model one step) and resolves when it is done: what a test waits on. */
  round(): Promise<number>;
  /** Stops after the round under way. */
  stop(): Promise<void>;
}

/**
 * The local stand-in for DynamoDB's TTL (shared/store/expiry/sweep.ts), started by `npm start`:
 * in AWS the table's TTL deletes expired items (infra/table.ts), and this never runs there. Each
 * round also runs the expiry pass of the aggregates (shared/aggregates/expire.ts), which in AWS
 * functions/aggregate_expiry runs every minute.
 */
export function startSweeper(
  models: ReadonlyArray<Model>,
  {
    everyMs = SWEEP.everyMs,
    budget = SWEEP.budget,
    onError = (_: unknown) => undefined,
  }: { everyMs?: number; budget?: number; onError?: (error: unknown) => void } = {},
): Sweeper {
  const expiring = models.filter((model) => model.ttl !== undefined);
  const positions = new Map<string, SweepPosition>();
  let running: Promise<number> = Promise.resolve(0);
  const oneRound = async (): Promise<number> => {
    let deleted = 0;
    for (const model of expiring) {
      let at: SweepPosition | undefined = positions.get(model.name) ?? { shard: 0 };
      // The round's budget spans shards: a pass ends at the last shard's end, and the next round starts one anew.
      for (let left = budget; at && left > 0; ) {
        const step = await sweepStep(model, at, left, expiredBy());
        deleted += step.deleted;
        left -= Math.max(step.scanned, 1);
        at = step.next;
      }
      if (at) positions.set(model.name, at);
      else positions.delete(model.name);
      // Its aggregates drop the records expired by now, before (and whether or not) this pass deletes them.
      if (expiresAggregates(model)) await expireAggregates(model, epochSeconds(), budget);
    }
    return deleted;
  };
  const round = () => {
    running = running
      .then(oneRound, () => 0)
      .catch((error: unknown) => {
        // An engine out of reach (or stopping) is met again at the next round, from the same place.
        onError(error);
        return 0;
      });
    return running;
  };
  const timer = expiring.length === 0 ? undefined : setInterval(() => void round(), everyMs);
  timer?.unref();
  return {
    round,
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
