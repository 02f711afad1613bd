import { countMisconfiguration, emfDocument } from '../../../shared/health/emf';
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

test('a misconfiguration is counted in Lambda as one EMF line on stdout, and not at all locally', () => {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    countMisconfiguration();
    expect(lines).toEqual([]);
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'recordgate-onebot';
    countMisconfiguration();
  } finally {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    write.mockRestore();
  }
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0])).toMatchObject({
    _aws: { CloudWatchMetrics: [{ Namespace: 'Recordgate', Dimensions: [['Table']], Metrics: [{ Name: 'Misconfigured', Unit: 'Count' }] }] },
    Misconfigured: 1,
  });
});
