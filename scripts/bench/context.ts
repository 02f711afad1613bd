import type { Meter } from './meter';

/** What every benchmark gets from the runner. */
export interface BenchContext {
  /** One run on small data: a smoke test of the suite, not figures to publish. */
  quick: boolean;
  /** Meters the store's document client for the whole run (capacity, and that no Scan is sent). */
  meter: Meter;
  /** The embedded engine's endpoint (dynalite, in its own process). */
  endpoint: string;
  /** That engine's process. */
  enginePid: number;
  log(message: string): void;
}
