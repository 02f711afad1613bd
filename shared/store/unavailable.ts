import { BatchOutOfTime, OutcomeUnknown, PartialWrite, TableUnreachable } from './errors';
import { isTimeout, isUnavailable, misconfiguration, type Misconfiguration } from './sdk-errors';

/**
 * Why the database could not do what was asked, where the database is the reason and not the
 * request: nothing was written, or (`outcome_unknown`) nobody can tell yet. The one place that
 * decides "the database is down": the record API answers it 503 (or 500 for what an operator
 * must fix), and the OneBot receiver keeps the delivery through it until the database is back.
 */
export type Unavailable =
  | { kind: 'outcome_unknown'; error: OutcomeUnknown }
  | { kind: 'out_of_time'; error: BatchOutOfTime }
  | { kind: 'unreachable'; error: TableUnreachable }
  | { kind: 'misconfigured'; problem: Misconfiguration }
  | { kind: 'timeout' }
  | { kind: 'overloaded' };

/** Why `error` means the database is unavailable, undefined when it does not; a bulk write's PartialWrite is read by its cause. */
export function whyUnavailable(error: unknown): Unavailable | undefined {
  const cause = error instanceof PartialWrite ? error.cause : error;
  if (cause instanceof OutcomeUnknown) return { kind: 'outcome_unknown', error: cause };
  if (cause instanceof BatchOutOfTime) return { kind: 'out_of_time', error: cause };
  if (cause instanceof TableUnreachable) return { kind: 'unreachable', error: cause };
  const problem = misconfiguration(cause);
  if (problem) return { kind: 'misconfigured', problem };
  if (isTimeout(cause)) return { kind: 'timeout' };
  if (isUnavailable(cause)) return { kind: 'overloaded' };
  return undefined;
}
