import { RETAINED_PER_QUERY, runQuerySoak } from '../../scripts/soak/query-soak';

// `npm start` embeds dynalite, and dynalite 4.0.0 as published kept each Query's LevelDB
// iterator open: ~30 KB of RSS a query here, gigabytes within a day of use. The engine runs in a
// process of its own (jest's memory is not counted), on a data folder as `npm start` runs it;
// 8,000 queries warm it, then 8,000 more must leave its RSS and heap flat. `npm run soak` is the
// 50,000-query run of docs/reliability.md. Only the amount of work is fixed, never a duration.
test('the embedded engine keeps nothing per query: its RSS and heap stay flat over 16,000 queries once warm', async () => {
  const report = await runQuerySoak({ queries: 16_000, warmUp: 8_000, sampleEvery: 1_000 });
  expect(report.settled.length).toBe(9);
  expect(report.rssBytesPerQuery).toBeLessThan(RETAINED_PER_QUERY.rss);
  expect(report.heapBytesPerQuery).toBeLessThan(RETAINED_PER_QUERY.heap);
}, 600_000);
