/**
 * The entry of the change feed's process (./feed-process.ts starts it): the local feed
 * (./feed.ts startLocalFeed) on an event loop and a core of its own, so that the stream's
 * reading, the consumer and the deliveries never hold up a request of the server. Where it
 * reads comes as its first argument, the models a `recordgate dev` serves as its second;
 * SUBSCRIPTIONS from the environment, as the server read it.
 * It stops only when the server says (a `stop` message: the batch in hand and the attempts under
 * way finish first), and it ends at once when the server is gone (its channel closes, as at a
 * kill -9 of the server): the checkpoint and the outbox are where they were, as the server's own
 * kill -9 leaves them.
 */
import { serveInThisProcess } from '../../catalog/in-process';
import type { FeedPlace } from './feed';

async function main(): Promise<void> {
  const place = JSON.parse(process.argv[2]) as FeedPlace;
  process.once('disconnect', () => process.exit(1));
  // The server's models when it serves a team's (`recordgate dev --models`): chosen before the
  // feed's modules load the catalog, as scripts/dev.ts does for the server.
  if (process.argv[3] !== undefined) serveInThisProcess(JSON.parse(process.argv[3]));
  const { readSubscriptions, startLocalFeed } = await import('./feed');
  const feed = startLocalFeed({ ...place, subscriptions: await readSubscriptions(process.env.SUBSCRIPTIONS) });
  process.once('message', () => {
    void feed.stop().then(() => process.exit(0));
  });
}

// A throw ends the process with it: the server sees the exit and starts it again.
void main();
