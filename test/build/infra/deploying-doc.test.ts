import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FUNCTIONS } from '../../../shared/manifest/functions';
import { HEALTH_METRICS } from '../../../shared/health/metrics';
import { CONTEXT_OPTIONS } from '../../../infra/context';
import { synthesized, templateIndex } from '../../support/synth';

// docs/deploying.md's lists and idle cost, read back from the template they describe (one synthesis).
const doc = readFileSync(path.join(__dirname, '../../../docs/deploying.md'), 'utf8');
const { template } = synthesized('default');
const index = templateIndex(template);

/** The backticked names in the first column of the doc's table whose first header is `header`. */
function firstColumn(header: string): string[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${header} |`));
  if (start < 0) throw new Error(`docs/deploying.md has no table headed "${header}"`);
  const after = lines.slice(start + 2);
  const end = after.findIndex((line) => !line.startsWith('|'));
  const rows = end < 0 ? after : after.slice(0, end);
  return rows.map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1] ?? `(no name in: ${row})`);
}

const sorted = (names: Iterable<string>) => [...names].sort();

test('the options table lists every -c option the stack reads, and nothing else', () => {
  expect(sorted(firstColumn('option'))).toEqual(sorted(CONTEXT_OPTIONS));
});

test('the outputs table lists every output of the template', () => {
  expect(sorted(firstColumn('output'))).toEqual(sorted(Object.keys(template.toJSON().Outputs)));
});

test('the secrets table lists every secret of the template', () => {
  const names = index.ofType('AWS::SecretsManager::Secret').map(([, s]) => /^recordgate (\w+):/.exec(s.Properties.Description)?.[1]);
  expect(sorted(firstColumn('secret'))).toEqual(sorted(names as string[]));
  expect(doc).toContain(`${['no', 'one', 'two', 'three', 'four', 'five'][names.length]} secrets`);
});

test('the alarms table names every alarm, a function alarm once for all functions', () => {
  const alarmNames = [...index.ofType('AWS::CloudWatch::Alarm'), ...index.ofType('AWS::CloudWatch::CompositeAlarm')].map(
    ([, a]) => a.Properties.AlarmName as string,
  );
  const functionPattern = new RegExp(`^Recordgate-(${FUNCTIONS.join('|')})-(errors|throttles)$`);
  const documented = new Set(alarmNames.map((name) => name.replace(functionPattern, 'Recordgate-<function>-$2').replace(/^Recordgate-/, '<stack>-')));
  expect(sorted(firstColumn('alarm'))).toEqual(sorted(documented));
});

// us-east-1 list prices: a secret $0.40, an alarm metric $0.10 (a metric-math alarm pays for each metric it reads),
// a composite alarm $0.50, a custom metric $0.30 a month.
function idleCost(at: ReturnType<typeof templateIndex>) {
  const alarms = at.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const alarmMetrics = alarms.reduce((sum, a) => sum + (a.Metrics ? a.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).length : 1), 0);
  const composites = at.ofType('AWS::CloudWatch::CompositeAlarm').length;
  const secrets = at.ofType('AWS::SecretsManager::Secret').length;
  // What the health check writes every minute; Misconfigured is written only when met.
  const customMetrics = [HEALTH_METRICS.healthy, HEALTH_METRICS.latency, HEALTH_METRICS.overdueBots].length;
  const cents = secrets * 40 + alarmMetrics * 10 + composites * 50 + customMetrics * 30;
  return {
    alarmMetrics,
    composites,
    secrets,
    customMetrics,
    dollars: (cents / 100).toFixed(2),
    alarmDollars: ((alarmMetrics * 10 + composites * 50) / 100).toFixed(2),
  };
}

test('the idle cost is what the template holds at list prices', () => {
  const { alarmMetrics, composites, secrets, customMetrics, dollars } = idleCost(index);
  expect(doc).toContain(`about **$${dollars} a month**: ${secrets} secrets at $0.40`);
  expect(doc).toContain(`${alarmMetrics} alarm metrics at $0.10`);
  expect(doc).toContain(`${composites} composite alarm at $0.50, ${customMetrics} custom metrics at $0.30`);
});

test("each alarms level's row states what its template holds at list prices", () => {
  for (const [level, at] of [
    ['all', index],
    ['essential', templateIndex(synthesized('x86Region').template)],
    ['none', templateIndex(synthesized('unknownRegionWithLayer').template)],
  ] as const) {
    const { alarmMetrics, composites, alarmDollars, dollars } = idleCost(at);
    expect(doc).toContain(`| \`${level}\` | ${alarmMetrics} | ${composites} | $${alarmDollars} | $${dollars} |`);
  }
});
