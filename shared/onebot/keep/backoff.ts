import { ONEBOT_QUEUE } from '../../limits';

/**
 * How long the consumer hides a kept delivery after its `receiveCount`-th receive found the
 * table unreachable: 1, 2, 4 ... minutes, then SQS's 12-hour maximum. Receives are spread over
 * the queue's retention instead of being spent in minutes.
 */
export function backoffSeconds(receiveCount: number): number {
  const n = Number.isInteger(receiveCount) && receiveCount >= 1 ? receiveCount : 1;
  return Math.min(ONEBOT_QUEUE.firstBackoffSeconds * 2 ** (n - 1), ONEBOT_QUEUE.maxBackoffSeconds);
}

/** Seconds from a delivery's first receive to its `receives`-th, each receive before it failing and backing off. */
export function secondsBeforeReceive(receives: number): number {
  let total = 0;
  for (let k = 1; k < receives; k++) total += backoffSeconds(k);
  return total;
}

/**
 * The queue's maxReceiveCount: the most receives whose backoffs end within the retention, with
 * spareSeconds left. SQS moves a delivery to the dead-letter queue on the receive after the
 * last one, so one that failed every time is dead-lettered before its retention ends instead of
 * expiring unseen, and kept there until deadLetterRetentionDays from when it was sent.
 */
export function maxReceiveCount(): number {
  const budget = ONEBOT_QUEUE.retentionDays * 86_400 - ONEBOT_QUEUE.spareSeconds;
  let count = 1;
  while (secondsBeforeReceive(count + 2) <= budget) count++;
  return count;
}

/** The longest outage a delivery kept at its start waits out: it is stored on its last receive. */
export const outageCoveredSeconds = (): number => secondsBeforeReceive(maxReceiveCount());
