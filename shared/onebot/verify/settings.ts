import { onebotSelfIds } from '../../config';
import { secretSetting } from '../../secrets';

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
