import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import type { Operation } from '../http/middleware';
import { botHealth, type BotHealth } from '../onebot/bots';
import { db } from '../store/client';
import { TableUnreachable } from '../store/errors';
import { misconfiguration } from '../store/sdk-errors';
import { TABLE_KEY } from '../store/table';
import { inTime } from '../deadline';

/**
 * One consistent point read of a key no record uses: proves the table answers, costs 0.5 RCU.
 * Then the OneBot bots and whether each one's heartbeat is overdue (shared/onebot/bots.ts).
 */
export async function databaseHealth(): Promise<{ database: 'ok'; latency_ms: number; table: string; bots: BotHealth[] }> {
  const started = performance.now();
  const table = settings().TABLE_NAME;
  await db().send(new GetCommand({ TableName: table, Key: { [TABLE_KEY.partitionKey]: '#health', [TABLE_KEY.sortKey]: '#health' } }), inTime());
  const latency = Math.round((performance.now() - started) * 10) / 10;
  return { database: 'ok', latency_ms: latency, table, bots: await botHealth() };
}

/**
 * Healthy, or 503 whatever failed, but for a misconfiguration (500 `misconfigured`): a monitor
 * needs to know the database cannot serve, and whether waiting helps; the log says why.
 */
export const healthOperation: Operation = async () => {
  try {
    return { data: await databaseHealth() };
  } catch (error) {
    // A missing table or grant is for an operator to fix, not an outage to wait out (500 misconfigured).
    if (misconfiguration(error)) throw error;
    throw new TableUnreachable(error);
  }
};
