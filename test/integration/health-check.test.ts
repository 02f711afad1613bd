import { runHealthCheck } from '../support/emf';

test('a reachable table is reported healthy, with its latency and no overdue bots', async () => {
  const [doc] = await runHealthCheck();
  expect(doc._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'Recordgate', Dimensions: [['Table']] });
  expect(doc.Table).toBe(process.env.TABLE_NAME);
  expect(doc.Healthy).toBe(1);
  expect(doc.DatabaseLatency).toBeGreaterThanOrEqual(0);
  expect(doc.OverdueBots).toBe(0);
});
