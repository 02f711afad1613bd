/** Small statistics for benchmark samples: medians and percentiles, never means (one GC pause skews a mean). */
export function quantile(samples: ReadonlyArray<number>, q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

export const median = (samples: ReadonlyArray<number>): number => quantile(samples, 0.5);

/** Rounds for a report: three significant digits are all a shared machine can vouch for. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const scale = 10 ** (digits - 1 - Math.floor(Math.log10(Math.abs(value))));
  return Math.round(value * scale) / scale;
}

export const ratio = (value: number, baseline: number): number => round(value / baseline);

/** Milliseconds `task` takes, by the monotonic clock. */
export async function timeMs(task: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Runs `runs` rounds of the measured task and its baseline, alternating which goes first,
 * so drift on a shared machine hits both alike. Returns the medians.
 */
export async function paired(
  runs: number,
  measured: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<{ value: number; baseline: number; ratio: number }> {
  const values: number[] = [];
  const baselines: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      values.push(await measured());
      baselines.push(await baseline());
    } else {
      baselines.push(await baseline());
      values.push(await measured());
    }
  }
  const value = median(values);
  const base = median(baselines);
  return { value: round(value), baseline: round(base), ratio: ratio(value, base) };
}
