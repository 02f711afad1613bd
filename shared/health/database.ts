import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { loadOnce } from '../load-once';
import type { BotHealth } from './bots';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';

/** One consistent point read of a key no record uses: proves the table answers, costs 0.5 RCU. */
export async function tableHealth(): Promise<{ database: 'ok'; latency_ms: number; table: string }> {
  const started = performance.now();
  const table = settings().TABLE_NAME;
  await db().send(new GetCommand({ TableName: table, Key: { [TABLE_KEY.partitionKey]: '#health', [TABLE_KEY.sortKey]: '#health' } }), inTime());
  const latency = Math.round((performance.now() - started) * 10) / 10;
  return { database: 'ok', latency_ms: latency, table };
}

/**
 * The table's health, then the OneBot bots and whether each one's heartbeat is overdue
 * (shared/health/bots.ts). The bots' read (a list of onebot_bot through the store's planner) is
 * imported on first use: most health checks come from monitors without a token, which never see
 * the bots, so the health function's cold start does not load it (issue 24).
 */
const botsRead = loadOnce(() => import('./bots'));

export async function databaseHealth(): Promise<{ database: 'ok'; latency_ms: number; table: string; bots: BotHealth[] }> {
  const health = await tableHealth();
  const { botHealth } = await botsRead();
  return { ...health, bots: await botHealth() };
}
