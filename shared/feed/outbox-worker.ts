import { causeOf, log } from '../log';
import { attemptUnlessOpen } from './breaker';
import type { AttemptOutcome, WebhookSubscription } from './deliver';
import { noteDelivered } from './delivered';
import { writeDeadLetter } from './dead-letters';
import { groupOf } from './group';
import { headOf, heads, postpone, release, type Pending } from './outbox';
import type { Delivery } from './queue';

const POKE_MS = 50;

export interface WorkerSettings {
  subscriptions: ReadonlyArray<WebhookSubscription>;
  /** Attempts under way at once, across groups and subscriptions. */
  concurrency?: number;
  /** Epoch ms; a test moves it instead of waiting out the schedule. */
  now?: () => number;
  /** Shortened by tests only (shared/feed/schedule.ts ATTEMPT_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * Drains the outbox (./outbox.ts) for `npm start`, as functions/feed_delivery drains the SQS
 * FIFO queue in AWS: each group's first waiting delivery is attempted once it is due, many
 * groups at once (bounded), a group's next only once its first is delivered or dead, so a
 * record's changes reach a subscription in commit order and a slow endpoint holds back only its
 * own groups; one that stopped answering holds no slot once its breaker opened (./breaker.ts).
 * State lives in the table only: a worker killed mid-attempt attempts it again after the restart
 * (at least once).
 */
export class OutboxWorker {
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * First attempts made outside the outbox (./first-attempt.ts) whose delivery was kept in it
   * while they went on: their groups are not started here until they end. Apart from
   * `inFlight`, so that a hung endpoint's attempts never take the slots other groups' retries need.
   */
  private readonly carried = new Map<string, Promise<void>>();
  private readonly subscriptions: Map<string, WebhookSubscription>;
  private readonly concurrency: number;
  private readonly now: () => number;
  private scan?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private rescan = false;
  private stopped = false;

  constructor(private readonly settings: WorkerSettings) {
    this.subscriptions = new Map(settings.subscriptions.map((s) => [s.name, s]));
    this.concurrency = settings.concurrency ?? 8;
    this.now = settings.now ?? Date.now;
  }

  /** Looks for due deliveries now (one look at a time; a wake during one makes one more). */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.scan) {
      this.rescan = true;
      return this.scan;
    }
    this.scan = this.scanAll()
      .catch((error: unknown) => log.error('feed_outbox_failed', causeOf(error)))
      .finally(() => {
        this.scan = undefined;
        if (this.rescan) {
          this.rescan = false;
          void this.wake();
        }
      });
    return this.scan;
  }

  /**
   * A look shortly: what a send or a finished attempt asks for. Many in a row make one look, not
   * one each: a look reads every waiting delivery, and a bulk write sends a thousand.
   */
  poke(): void {
    if (this.stopped) return;
    this.soon ??= setTimeout(() => {
      this.soon = undefined;
      void this.wake();
    }, POKE_MS);
  }

  /** Resolves once nothing is under way and nothing is due at `now()`: a test then moves its clock to `nextDue`. */
  async settle(): Promise<void> {
    for (;;) {
      await this.wake();
      while (this.scan || this.inFlight.size > 0 || this.carried.size > 0) await Promise.all([this.scan, ...this.inFlight.values(), ...this.carried.values()]);
      const due = await this.nextDue();
      if (due === undefined || due > this.now()) return;
    }
  }

  /** When the earliest waiting attempt is due (epoch ms), or undefined when nothing waits. */
  async nextDue(): Promise<number | undefined> {
    let earliest: number | undefined;
    for (const name of this.subscriptions.keys()) for await (const head of heads(name)) earliest = Math.min(earliest ?? head.due, head.due);
    return earliest;
  }

  /** Looks every `everyMs` for a retry come due (a send pokes it, through the Outbox's `sent`). */
  start(everyMs = 1000): void {
    this.timer = setInterval(() => void this.wake(), everyMs);
    void this.wake();
  }

  /** Starts no more attempts and waits for those under way (each bounded by the attempt timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    await Promise.all([this.scan, ...this.inFlight.values(), ...this.carried.values()]);
  }

  /** Whether an attempt of the subscription (of one group, given `group`) is under way here. */
  busy(subscription: string, group?: string): boolean {
    const prefix = group === undefined ? `${subscription}#` : `${subscription}#${group}`;
    return [...this.inFlight.keys(), ...this.carried.keys()].some((key) => (group === undefined ? key.startsWith(prefix) : key === prefix));
  }

  /** The first attempt of a delivery, made at once and outside the outbox (./first-attempt.ts). */
  attemptFirst(delivery: Delivery): Promise<AttemptOutcome> {
    const subscription = this.subscriptions.get(delivery.subscription)!;
    return attemptUnlessOpen(delivery, subscription, { attempt: 1, now: this.now, timeoutMs: this.settings.timeoutMs });
  }

  /**
   * Takes over a first attempt still under way, whose delivery `keep` puts into the outbox (as
   * not yet attempted, so that a kill -9 leaves it to be attempted again): its outcome is then
   * written as this worker's own attempts' are. The group is held from now, before the put, so
   * that no look starts it beside the attempt. Resolves once the delivery is kept.
   */
  carry(delivery: Delivery, outcome: Promise<AttemptOutcome>, keep: () => Promise<Pending>): Promise<void> {
    const key = `${delivery.subscription}#${groupOf(delivery)}`;
    const kept = keep();
    const run = Promise.all([kept, outcome])
      .then(([pending, settled]) => this.writeOutcome(pending, 1, settled))
      .then(() => undefined)
      .catch((error: unknown) => log.error('feed_outbox_failed', { subscription: delivery.subscription, ...causeOf(error) }))
      .finally(() => {
        this.carried.delete(key);
        this.poke();
      });
    this.carried.set(key, run);
    return kept.then(() => undefined);
  }

  private async scanAll(): Promise<void> {
    for (const name of this.subscriptions.keys()) {
      for await (const head of heads(name)) {
        if (this.inFlight.size >= this.concurrency) return;
        this.begin(head);
      }
    }
  }

  private begin(head: Pending): void {
    const key = `${head.delivery.subscription}#${head.group}`;
    if (this.stopped || this.inFlight.has(key) || this.carried.has(key) || head.due > this.now()) return;
    const run = this.runGroup(head)
      .catch((error: unknown) => log.error('feed_outbox_failed', { subscription: head.delivery.subscription, ...causeOf(error) }))
      .finally(() => {
        this.inFlight.delete(key);
        // A slot is free: another group may be waiting for one.
        this.poke();
      });
    this.inFlight.set(key, run);
  }

  /**
   * Attempts the group's deliveries in order while they are due and delivered (or dead). The head
   * is read again once the group is held: the look that found it may have read the outbox before
   * a run of the same group, ended since, let it go, and a stale head would be attempted again
   * after the group's later changes.
   */
  private async runGroup(found: Pending): Promise<void> {
    for (let head = await headOf(found.delivery.subscription, found.group); head && !this.stopped && head.due <= this.now(); ) {
      if (!(await this.attempt(head))) return;
      head = await headOf(head.delivery.subscription, head.group);
    }
  }

  /** One attempt, and what it leaves in the table; true when the group may go on to its next. */
  private async attempt(pending: Pending): Promise<boolean> {
    const subscription = this.subscriptions.get(pending.delivery.subscription)!;
    const attempt = pending.attempts + 1;
    const outcome = await attemptUnlessOpen(pending.delivery, subscription, { attempt, now: this.now, timeoutMs: this.settings.timeoutMs });
    return this.writeOutcome(pending, attempt, outcome);
  }

  /** What attempt number `attempt` came to, written to the table; true when the group may go on to its next. */
  private async writeOutcome(pending: Pending, attempt: number, outcome: AttemptOutcome): Promise<boolean> {
    const subscription = this.subscriptions.get(pending.delivery.subscription)!;
    const at = new Date(this.now()).toISOString();
    switch (outcome.kind) {
      case 'delivered':
        // Out of the outbox before it is told delivered, so GET /api/feed never shows a change as
        // the last delivered while still counting it pending.
        await release(pending);
        await noteDelivered(pending.delivery, at);
        return true;
      case 'retry':
        await postpone(pending, this.now() + outcome.afterSeconds * 1000, outcome.failure);
        return false;
      case 'dead':
        log.warn('feed_dead_letter', {
          subscription: subscription.name,
          change_id: pending.delivery.change.change_id,
          attempts: attempt,
          failure: outcome.failure,
        });
        await writeDeadLetter({ delivery: pending.delivery, attempts: attempt, failure: outcome.failure, at });
        await release(pending);
        return true;
    }
  }
}
