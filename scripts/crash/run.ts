/**
 * `npm run crash [-- --rounds 20 --writers 16 --kill-after 2000-20000]`: the long variant of
 * test/integration/crash.test.ts. Kills the local server with SIGKILL mid-write, round after
 * round, restarts it on the same data directory and checks every index against the records.
 * Exits non-zero on any inconsistency.
 */
import { parseArgs } from 'node:util';
import { runCrashRounds } from './rounds';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    writers: { type: 'string', default: '16' },
    'kill-after': { type: 'string', default: '2000-20000' },
  },
});
const [low, high] = flags['kill-after'].split('-').map(Number);

runCrashRounds({ rounds: Number(flags.rounds), writers: Number(flags.writers), killAfterMs: [low, high ?? low], log: console.log }).then(
  (report) => {
    for (const problem of report.problems.slice(0, 50)) console.log(problem);
    console.log(
      `${report.rounds} crash rounds, ${report.acknowledged} writes acknowledged, ${report.recordsChecked} records checked, ${report.problems.length} inconsistencies`,
    );
    process.exit(report.problems.length === 0 ? 0 : 1);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
