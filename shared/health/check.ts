import * as zm from '../zod';
import { databaseHealth } from './database';
import { causeOf, log } from '../log';
import { HEALTH_METRICS, type Measurement } from './metrics';

// The health answer may list OneBot bots with an `overdue` heartbeat flag; anything else there
// (or no list at all) must not turn a healthy database into a failed check.
const botsInAnswer = zm.object({ bots: zm.array(zm.object({ overdue: zm.boolean() })) });

/** Measures the database once: healthy 1 or 0, its latency, and how many bots are overdue. */
export async function measureHealth(): Promise<Measurement[]> {
  let answer: Awaited<ReturnType<typeof databaseHealth>>;
  try {
    answer = await databaseHealth();
  } catch (error) {
    log.error('health_check_failed', causeOf(error));
    return [{ name: HEALTH_METRICS.healthy, value: 0, unit: 'Count' }];
  }
  const bots = botsInAnswer.safeParse(answer);
  return [
    { name: HEALTH_METRICS.healthy, value: 1, unit: 'Count' },
    { name: HEALTH_METRICS.latency, value: answer.latency_ms, unit: 'Milliseconds' },
    { name: HEALTH_METRICS.overdueBots, value: bots.success ? bots.data.bots.filter((b) => b.overdue).length : 0, unit: 'Count' },
  ];
}
