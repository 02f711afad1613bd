import { spawnSync } from 'node:child_process';

/**
 * The filter property tests with a random seed and more runs than `npm test` affords:
 * `npm run fuzz:filters -- [times] [seed]`. A failure prints its seed; pass it back to replay.
 */
const [times = '10', seed = String(Math.floor(Math.random() * 2 ** 31))] = process.argv.slice(2);
console.log(`filter fuzz: seed ${seed}, ${times}x the runs of npm test`);
const result = spawnSync(
  'npx',
  [
    'jest',
    '--selectProjects',
    'dynalite',
    'ddblocal',
    '--maxWorkers=2',
    '--testTimeout=1800000',
    '--',
    'test/integration/filter-model',
    'test/integration/engines-agree',
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, FILTER_FUZZ_SEED: seed, FILTER_FUZZ_RUNS: times },
  },
);
process.exit(result.status ?? 1);
