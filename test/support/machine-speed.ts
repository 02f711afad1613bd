import { FUNCTION_SETTINGS } from '../../shared/limits';

/**
 * Budgets from this machine's speed as it is now, not from a figure picked on an idle one: a
 * test times the work a function will do (done straight against the engine, or a small share of
 * it through the service) and gives the function that much time (`api.giveTime`), so a loaded
 * machine makes the run slower, never its answers different. What is asserted stays behaviour;
 * the measurement only sets the budget.
 */
export async function measureMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/**
 * Seconds a function needs for work measured at `ms`: `margin` times it, as the load may grow
 * while the test runs, on top of the configured timeout, which holds the function's own reserves
 * (the answer, the stop before the deadline).
 */
export const secondsFor = (ms: number, margin = 4): number => FUNCTION_SETTINGS.timeoutSeconds + Math.ceil((margin * ms) / 1000);
