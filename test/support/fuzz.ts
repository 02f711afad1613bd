/**
 * fast-check's seed and run count. `npm test` fixes the seed, so a run that passed passes again
 * and CI fails only on a change; `npm run fuzz` sets FUZZ_SEED and FUZZ_RUNS for a random,
 * longer run that looks for new counterexamples.
 */
export const FUZZ = {
  seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261123,
  runs: process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 1,
};

/** One property's parameters: `numRuns` cases in `npm test`, on a seed of its own (`offset`), so two properties never share their cases. */
export const fuzzed = (numRuns: number, offset: number) => ({ seed: FUZZ.seed + offset, numRuns: numRuns * FUZZ.runs });

/** A property test's time limit: `ms` in `npm test`, stretched with the run count. */
export const fuzzTimeout = (ms: number) => ms * FUZZ.runs;
