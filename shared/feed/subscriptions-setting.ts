import { secretSetting } from '../secrets';
import { type CheckedSubscription, checkSubscriptions } from './check-subscriptions';

let last: { text: string | undefined; checked: Promise<CheckedSubscription[]> } | undefined;

/**
 * SUBSCRIPTIONS as the feed's functions read it: the `SUBSCRIPTIONS` secret in AWS, the variable
 * locally (shared/secrets.ts, re-read every five minutes), checked again only when its text
 * changed. A text that fails the check throws, so the batch fails and is retried until the
 * operator fixes it, rather than changes being matched against nothing.
 */
export async function currentSubscriptions(): Promise<CheckedSubscription[]> {
  const text = await secretSetting('SUBSCRIPTIONS');
  if (!last || last.text !== text) last = { text, checked: checkSubscriptions(text) };
  return last.checked;
}
