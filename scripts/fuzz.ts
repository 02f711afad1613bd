import { spawnSync } from 'node:child_process';

/**
 * The property tests with a random seed and more runs than `npm test` affords (which fixes the
 * seed, so a run that passed once passes again): `npm run fuzz -- [filters|hostile|model] [times] [seed]`.
 * A failure prints its seed; pass it back to replay.
 */
const SUITES = {
  filters: ['test/integration/filter-model', 'test/integration/engines-agree'],
  hostile: ['test/integration/hostile', 'test/integration/onebot-hostile', 'test/unit/decimal', 'test/unit/store/keys'],
  model: ['test/integration/record-model', 'test/integration/access-model'],
};
const args = process.argv.slice(2);
const group = Object.hasOwn(SUITES, args[0] ?? '') ? (args.shift() as keyof typeof SUITES) : undefined;
const [times = '10', seed = String(Math.floor(Math.random() * 2 ** 31))] = args;
if (!/^[1-9]\d*$/.test(times) || !/^\d+$/.test(seed)) {
  console.error(`usage: npm run fuzz -- [${Object.keys(SUITES).join('|')}] [times] [seed]`);
  process.exit(2);
}
const paths = group ? SUITES[group] : Object.values(SUITES).flat();
console.log(`fuzz ${group ?? 'all'}: seed ${seed}, ${times}x the runs of npm test`);
const result = spawnSync('npx', ['jest', '--selectProjects', 'unit', 'dynalite', 'ddblocal', '--maxWorkers=2', '--testTimeout=1800000', '--', ...paths], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: times },
});
process.exit(result.status ?? 1);
