import { LIMITS } from '../../limits';
import { bulkMayContinue } from '../../invocation';
import { RecordBusy } from '../errors';

/**
 * Before the next attempt at a record another writer just changed: a jittered pause, so that
 * writers racing on one record spread out (each failed condition means another writer's write
 * landed, so N writers all land within N attempts). After LIMITS.maxContentionAttempts, or
 * once the function is within its reserve before the deadline, the record is too busy to
 * answer now: RecordBusy, with this request's write not made, rather than a write that lands
 * after the function's time is up.
 */
export async function awaitTurn(attempt: number, id: string): Promise<void> {
  if (attempt >= LIMITS.maxContentionAttempts || !bulkMayContinue()) throw new RecordBusy(id);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
}
