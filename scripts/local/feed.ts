import { consumeStream } from '../../shared/feed/consume';
import { type CheckedSubscription, checkSubscriptions, SubscriptionsInvalid } from '../../shared/feed/check-subscriptions';
import { isWebhook } from '../../shared/feed/deliver';
import { FirstAttemptQueue } from '../../shared/feed/first-attempt';
import { Outbox } from '../../shared/feed/outbox';
import { OutboxWorker } from '../../shared/feed/outbox-worker';
import { startFeedPoller } from './feed-poller';
import { StartupError } from './startup';

/**
 * SUBSCRIPTIONS for `npm start`, checked before anything is created (shared/feed/check-subscriptions.ts):
 * a bad entry stops the start in one line naming where it is, never what it holds (the text holds
 * the webhooks' secrets). A bus is AWS's: refused here, as the stack would have none to send to.
 */
export async function readSubscriptions(text: string | undefined): Promise<CheckedSubscription[]> {
  let subscriptions: CheckedSubscription[];
  try {
    subscriptions = await checkSubscriptions(text);
  } catch (error) {
    if (!(error instanceof SubscriptionsInvalid)) throw error;
    throw new StartupError(`${error.message}; fix SUBSCRIPTIONS (docs/feed.md), or unset it`);
  }
  const buses = subscriptions.flatMap((s, i) => (isWebhook(s) ? [] : [`SUBSCRIPTIONS[${i}] (${s.name})`]));
  if (buses.length > 0) throw new StartupError(`${buses.join(', ')}: an EventBridge bus is for the deployed stack only; give npm start webhook subscriptions`);
  return subscriptions;
}

/** Where the feed reads and keeps its checkpoint. */
export interface FeedPlace {
  endpoint: string;
  tableName: string;
  dataDir: string;
}

export interface LocalFeed {
  /** Lets the batch in hand and the attempts under way finish (each within its 15 s), then stops. */
  stop(): Promise<void>;
}

/**
 * The change feed of `npm start`: the table's stream read by the poller (./feed-poller.ts) into
 * the consumer, which attempts each webhook delivery at once and leaves in the outbox only what
 * was not delivered within a second (shared/feed/first-attempt.ts), drained by the worker. A
 * record is checkpointed only once its deliveries are delivered or in the outbox, so a kill -9
 * loses nothing: the stream is read again from the checkpoint and the outbox is where it was.
 */
export function startLocalFeed(options: FeedPlace & { subscriptions: ReadonlyArray<CheckedSubscription> }): LocalFeed {
  const { subscriptions } = options;
  const webhooks = subscriptions.filter(isWebhook);
  const worker = new OutboxWorker({ subscriptions: webhooks });
  const outbox = new Outbox(Date.now, () => worker.poke());
  const queue = new FirstAttemptQueue({ outbox, worker, subscriptions: webhooks.map((s) => s.name) });
  const poller = startFeedPoller({ ...options, consume: (records) => consumeStream(records, { subscriptions, queue }) });
  worker.start();
  return {
    async stop() {
      await Promise.all([poller.stop(), worker.stop()]);
      await queue.flush();
    },
  };
}
