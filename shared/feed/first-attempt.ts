import { setTimeout as sleep } from 'node:timers/promises';
import { causeOf, log } from '../log';
import { noteDelivered } from './delivered';
import { groupOf } from './group';
import { anyWaiting, headOf, type Outbox, type Pending } from './outbox';
import type { OutboxWorker } from './outbox-worker';
import type { Delivery, DeliveryQueue } from './queue';

/** How long a first attempt is waited for before its delivery is kept in the outbox (it goes on meanwhile). */
export const FIRST_ANSWER_MS = 1000;

/** The last delivery acknowledged is written at most this often per subscription (GET /api/feed reads it). */
const NOTE_EVERY_MS = 10_000;

export interface FirstAttemptSettings {
  outbox: Outbox;
  worker: OutboxWorker;
  /** The webhook subscriptions' names. */
  subscriptions: ReadonlyArray<string>;
  /** FIRST_ANSWER_MS unless a test shortens it. */
  boundMs?: number;
}

/**
 * The DeliveryQueue of `npm start`: a delivery whose group has nothing waiting is attempted at
 * once (Standard Webhooks' first attempt is "immediately") and, delivered, writes nothing to
 * the table: the outbox's put, update and delete, and their stream records, cost the one
 * embedded engine more than the write they tell of. Only a delivery that fails, or is not
 * answered within `boundMs`, is put into the outbox (./outbox.ts), for the worker's schedule;
 * the attempt not yet answered goes on, the worker takes over what it comes to
 * (OutboxWorker.carry). `send` resolves once each delivery is delivered or kept, and the poller
 * checkpoints only after it (scripts/local/feed-poller.ts): a kill -9 meanwhile hands the record
 * over again, and it is attempted again (at least once).
 *
 * Order per group holds as the outbox's does: a group's deliveries are sent one after another
 * (shared/feed/consume.ts), and one goes past the outbox only when the group has nothing in it
 * and nothing under way. What waits is known in memory: groups this process kept, and at start
 * every subscription counts as having some until the outbox is read. An endpoint that left an
 * attempt unanswered for `boundMs` sends all its subscription's deliveries through the outbox
 * until the outbox has none of it: a hung endpoint holds the poller up once, not once per record.
 */
export class FirstAttemptQueue implements DeliveryQueue {
  /** Groups (`subscription#group`) that may have a delivery in the outbox. */
  private readonly waiting = new Set<string>();
  /** Subscriptions all of whose deliveries go through the outbox for now. */
  private readonly slow: Set<string>;
  private readonly delivered = new Map<string, { delivery: Delivery; at: string }>();
  private noteTimer?: NodeJS.Timeout;

  constructor(private readonly settings: FirstAttemptSettings) {
    this.slow = new Set(settings.subscriptions);
  }

  async send(deliveries: ReadonlyArray<Delivery>): Promise<void> {
    await Promise.all(deliveries.map((delivery) => this.sendOne(delivery)));
  }

  /** Writes the last delivery acknowledged of each subscription, if not yet written. */
  async flush(): Promise<void> {
    clearTimeout(this.noteTimer);
    this.noteTimer = undefined;
    const notes = [...this.delivered.values()];
    this.delivered.clear();
    await Promise.all(notes.map(({ delivery, at }) => noteDelivered(delivery, at)));
  }

  private async sendOne(delivery: Delivery): Promise<void> {
    const { outbox, worker, boundMs = FIRST_ANSWER_MS } = this.settings;
    const key = `${delivery.subscription}#${groupOf(delivery)}`;
    if (!(await this.mayGoFirst(delivery, key))) {
      this.waiting.add(key);
      await outbox.send([delivery]);
      return;
    }
    const outcome = worker.attemptFirst(delivery);
    const first = await Promise.race([outcome, sleep(boundMs, undefined, { ref: false })]);
    if (first?.kind === 'delivered') {
      this.noteDelivered(delivery);
      return;
    }
    if (first === undefined) this.slow.add(delivery.subscription);
    this.waiting.add(key);
    await worker.carry(delivery, outcome, () => this.keep(delivery));
  }

  /** Whether nothing of the delivery's group waits in the outbox nor is under way (nor, for a slow endpoint, of its subscription). */
  private async mayGoFirst(delivery: Delivery, key: string): Promise<boolean> {
    const { worker } = this.settings;
    const { subscription } = delivery;
    if (this.slow.has(subscription)) {
      if (worker.busy(subscription) || (await anyWaiting(subscription))) return false;
      // Its groups stay in `waiting`, each let go by its own look below: another group's put may
      // be under way now, unseen by the look just made.
      this.slow.delete(subscription);
    }
    if (this.waiting.has(key)) {
      const group = groupOf(delivery);
      if (worker.busy(subscription, group) || (await headOf(subscription, group))) return false;
      this.waiting.delete(key);
    }
    return true;
  }

  /** Puts the delivery into the outbox, where its group has nothing else: the group's head is it. */
  private async keep(delivery: Delivery): Promise<Pending> {
    await this.settings.outbox.send([delivery]);
    const pending = await headOf(delivery.subscription, groupOf(delivery));
    if (!pending) throw new Error(`the delivery of ${delivery.change.change_id} to ${delivery.subscription} is not in the outbox after its put`);
    return pending;
  }

  private noteDelivered(delivery: Delivery): void {
    this.delivered.set(delivery.subscription, { delivery, at: new Date().toISOString() });
    this.noteTimer ??= setTimeout(() => {
      this.flush().catch((error: unknown) => log.warn('feed_note_failed', causeOf(error)));
    }, NOTE_EVERY_MS).unref();
  }
}
