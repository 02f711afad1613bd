import { ONEBOT_LIMITS } from '../limits';
import { onebotBot } from '../models/onebot';
// The list action itself, not the store's index: through it esbuild would also emit create's
// regex-engine chunk (its import() survives tree shaking, evanw/esbuild#3252), never loaded here.
import { listRecords } from '../store/actions/list/list';

// The bots' health as the health route shows it, read from the onebot_bot records the receiver
// keeps: apart from the receiver (shared/onebot), which the health function never loads.

const asBoolean = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

export interface BotHealth {
  self_id: unknown;
  online: boolean | null;
  good: boolean | null;
  last_heartbeat: string | null;
  interval_ms: number | null;
  /** No heartbeat for overdueIntervals intervals; false before the first heartbeat and after lifecycle disable. */
  overdue: boolean;
}

/** A stored onebot_bot record as the health answer shows it at `now`. */
export function botHealthOf(bot: Record<string, unknown>, now: number): BotHealth {
  const last = typeof bot.last_heartbeat === 'string' ? bot.last_heartbeat : null;
  const interval = typeof bot.interval_ms === 'number' ? bot.interval_ms : null;
  return {
    self_id: bot.self_id,
    online: asBoolean(bot.online) ?? null,
    good: asBoolean(bot.good) ?? null,
    last_heartbeat: last,
    interval_ms: interval,
    overdue: last !== null && interval !== null && bot.lifecycle !== 'disable' && now - Date.parse(last) > ONEBOT_LIMITS.overdueIntervals * interval,
  };
}

/** Each known bot (the first maxBotsInHealth by id) and whether its heartbeat is overdue. */
export async function botHealth(): Promise<BotHealth[]> {
  const { items } = await listRecords(onebotBot, { limit: ONEBOT_LIMITS.maxBotsInHealth });
  const now = Date.now();
  return items.map((bot) => botHealthOf(bot, now));
}
