import { runHealthCheck } from '../support/emf';

// The engine is up but this file's function looks for a table that is not there: the check
// must report unhealthy (0) rather than throw, so the alarm fires on the value.
beforeAll(() => {
  process.env.TABLE_NAME = `${process.env.TABLE_NAME}_missing`;
});

test('an unreachable table is reported as Healthy 0, with no latency figure', async () => {
  const [doc] = await runHealthCheck();
  expect(doc.Healthy).toBe(0);
  expect(doc).not.toHaveProperty('DatabaseLatency');
  expect(doc._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'Healthy', Unit: 'Count' }]);
});
