/**
 * `npm run soak [-- --queries 50000 --in-memory]`: the long variant of
 * test/bench/engine-memory.test.ts. Sends Query after Query to the embedded engine in a process
 * of its own and prints its RSS as it goes, then what it kept per query once warm (after the
 * first fifth). Exits non-zero when that is more than RETAINED_PER_QUERY.
 */
import { parseArgs } from 'node:util';
import { isFlat, mb, RETAINED_PER_QUERY, runQuerySoak } from './query-soak';

const { values: flags } = parseArgs({
  options: { queries: { type: 'string', default: '50000' }, 'in-memory': { type: 'boolean', default: false } },
});
const queries = Number(flags.queries);

runQuerySoak({ queries, warmUp: Math.round(queries / 5), sampleEvery: 2500, inMemory: flags['in-memory'], log: console.log }).then(
  (report) => {
    const first = report.settled[0];
    const last = report.settled[report.settled.length - 1];
    console.log(
      `after ${first.queries} queries: rss ${mb(first.rss)} MB; after ${last.queries}: ${mb(last.rss)} MB; ` +
        `${Math.round(report.rssBytesPerQuery)} bytes of RSS and ${Math.round(report.heapBytesPerQuery)} bytes of heap per query`,
    );
    console.log(`flat: at most ${RETAINED_PER_QUERY.rss} bytes of RSS and ${RETAINED_PER_QUERY.heap} of heap per query`);
    process.exit(isFlat(report) ? 0 : 1);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
