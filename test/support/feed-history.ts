import type { Change } from '../../shared/feed/change';
import { deadLetters } from '../../shared/feed/dead-letters';
import type { OutboxWorker } from '../../shared/feed/outbox-worker';
import { RETRY_SCHEDULE_SECONDS } from '../../shared/feed/schedule';
import { answeredOk, type Received, type WebhookReceiver } from './webhook-receiver';

let sequence = 0;
const T0 = Date.parse('2026-11-27T08:00:00.000Z');

/** The changes of `records` records of the model order, `versions` each, in commit order, interleaved across records. */
export function changeHistory(prefix: string, records: number, versions: number): Change[] {
  const changes: Change[] = [];
  for (let version = 1; version <= versions; version++) {
    for (let r = 0; r < records; r++) {
      sequence++;
      const id = `${prefix}-rec-${r}`;
      changes.push({
        change_id: `${prefix}-${String(sequence).padStart(6, '0')}`,
        model: 'order',
        id,
        op: version === 1 ? 'create' : 'update',
        version,
        time: new Date(T0 + sequence).toISOString(),
        after: { id, n: version, _version: version },
        ...(version > 1 ? { before: { id, n: version - 1, _version: version - 1 } } : {}),
      });
    }
  }
  return changes;
}

/**
 * Per record, the versions of its changes in the order the endpoint first received each that it
 * answered with a 2xx. A late answer is one: counting only prompt ones, a change answered late
 * and sent again afterwards (a stream record read again) would look acknowledged after the
 * changes that followed it.
 */
export function firstAcknowledgedVersions(received: ReadonlyArray<Received>): Map<string, number[]> {
  const firsts = new Map<string, number[]>();
  const seen = new Set<string>();
  for (const got of received.filter(answeredOk)) {
    if (seen.has(got.id)) continue;
    seen.add(got.id);
    firsts.set(got.body.data.id, [...(firsts.get(got.body.data.id) ?? []), got.body.data.version]);
  }
  return firsts;
}

/** A seeded generator (mulberry32), so that a failing run can be replayed: tests put the seed in their names. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What a drained feed owes a flaky endpoint: each change acknowledged, or a dead letter after the
 * whole schedule; every request signed (none refused) and carrying its change as sent; per
 * record, the first acknowledgements in commit order.
 */
export async function expectDeliveredOrDead(subscription: string, changes: ReadonlyArray<Change>, receiver: WebhookReceiver): Promise<void> {
  expect(receiver.refused).toEqual([]);
  const dead = new Set<string>();
  for await (const letter of deadLetters(subscription)) {
    expect(letter.attempts).toBe(RETRY_SCHEDULE_SECONDS.length);
    dead.add(letter.delivery.change.change_id);
  }
  const acknowledged = receiver.acknowledged();
  for (const change of changes) expect(acknowledged.has(change.change_id) || dead.has(change.change_id)).toBe(true);
  for (const got of receiver.received)
    expect(got.body).toEqual({ type: `order.${got.body.data.op}`, timestamp: got.body.data.time, data: changes.find((c) => c.change_id === got.id) });
  for (const versions of firstAcknowledgedVersions(receiver.received).values()) expect(versions).toEqual([...versions].sort((a, b) => a - b));
}

/** Runs the worker until nothing waits, moving the clock (test/support/clock.ts) to each due retry. */
export async function drain(worker: OutboxWorker, clock: { advance(ms: number): void }): Promise<void> {
  for (;;) {
    await worker.settle();
    const due = await worker.nextDue();
    if (due === undefined) return;
    clock.advance(Math.max(0, due - Date.now()));
  }
}
