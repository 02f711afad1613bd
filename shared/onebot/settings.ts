import { onebotMetaRetentionDays, onebotSelfIds } from '../config';
import { secretSetting } from '../secrets';

export interface OneBotSettings {
  /** HMAC secret; undefined means signatures are not checked. */
  secret?: string;
  /** Bot accounts allowed to post; undefined means any. */
  selfIds?: ReadonlySet<string>;
}

/**
 * Read per request (the secret is cached by secretSetting), so a rotated secret or a changed
 * allow-list applies without a restart. `ONEBOT_SELF_IDS` is not secret: a plain variable.
 */
export async function onebotSettings(): Promise<OneBotSettings> {
  const secret = (await secretSetting('ONEBOT_SECRET')) || undefined;
  const ids = onebotSelfIds();
  return { secret, selfIds: ids.length > 0 ? new Set(ids) : undefined };
}

const DAY = 86_400;

/**
 * How long heartbeat and lifecycle events are kept: `ONEBOT_META_RETENTION_DAYS` (default 7;
 * 0 keeps them). Other events are kept until deleted.
 */
export function metaEventRetentionSeconds(): number | undefined {
  const days = onebotMetaRetentionDays();
  return Number.isFinite(days) && days > 0 ? Math.round(days * DAY) : undefined;
}
