import { ApiError } from '../errors';
import { type CheckedSubscription, SubscriptionsInvalid } from '../feed/check-subscriptions';
import { currentSubscriptions } from '../feed/subscriptions-setting';

/**
 * SUBSCRIPTIONS as the admin routes read it. A text its check refuses (a secret put by hand in
 * AWS; `npm start` refuses to start with one) is the operator's to fix: 500 `misconfigured`,
 * counted for its alarm, each problem named by where it is, never by what it holds.
 */
export async function adminSubscriptions(): Promise<CheckedSubscription[]> {
  try {
    return await currentSubscriptions();
  } catch (error) {
    if (!(error instanceof SubscriptionsInvalid)) throw error;
    throw new ApiError('misconfigured', `${error.message}; fix the SUBSCRIPTIONS setting (docs/feed.md)`);
  }
}
