import { emfDocument } from '../../../shared/health/emf';
import { HEALTH_METRICS } from '../../../shared/health/metrics';

test('an EMF document names each metric with its unit and carries its value and dimension beside it', () => {
  const doc = emfDocument(
    'Recordgate',
    { Table: 'prod' },
    [
      { name: HEALTH_METRICS.healthy, value: 1, unit: 'Count' },
      { name: HEALTH_METRICS.latency, value: 4.2, unit: 'Milliseconds' },
    ],
    1_700_000_000_000,
  );
  expect(doc).toEqual({
    _aws: {
      Timestamp: 1_700_000_000_000,
      CloudWatchMetrics: [
        {
          Namespace: 'Recordgate',
          Dimensions: [['Table']],
          Metrics: [
            { Name: 'Healthy', Unit: 'Count' },
            { Name: 'DatabaseLatency', Unit: 'Milliseconds' },
          ],
        },
      ],
    },
    Table: 'prod',
    Healthy: 1,
    DatabaseLatency: 4.2,
  });
});
