import type { Environment } from 'aws-cdk-lib';

const account = '123456789012';

export type VariantSpec = { context: Record<string, unknown>; env?: Environment };

/**
 * Every app the infra tests read, synthesized once per test run (./index.ts): each context an
 * assertion needs, and no more. A context option is turned on in `options`, all at once, rather
 * than one synthesis per option; `default` is the stack as `cdk deploy` with no option builds it.
 */
export const SYNTH_VARIANTS = {
  default: { context: {} },
  /** Every option set (us-east-1, where arm64 has the extension layer), removal=destroy among them. */
  options: {
    context: {
      removal: 'destroy',
      alarmEmail: 'ops@example.com,oncall@example.com',
      jwtIssuer: 'https://id.example.com/',
      jwtAudience: 'recordgate',
      jwtScopePrefix: 'rg/',
      onebotApiRoots: '{"10001":"http://bot.example:5700/"}',
      onebotSelfIds: '10001, 10002',
      corsOrigins: 'https://app.example.com, https://*.example.org',
      subscriptionsFile: 'test/support/synth/subscriptions.json',
    },
    env: { account, region: 'us-east-1' },
  },
  /** A region with the extension for x86_64 only, removal=retain and an existing table. */
  x86Region: {
    context: {
      tableName: 'Recordgate-RecordsTable-KEPT',
      tableStreamArn: `arn:aws:dynamodb:eu-central-2:${account}:table/Recordgate-RecordsTable-KEPT/stream/2026-11-27T07:30:00.000`,
    },
    env: { account, region: 'eu-central-2' },
  },
  /** A region aws-cdk-lib knows no layer for: synth refuses it without the option... */
  unknownRegion: { context: {}, env: { account, region: 'ca-west-1' } },
  /** ...and takes the layer ARN AWS lists. */
  unknownRegionWithLayer: {
    context: { secretsLayerArn: `arn:aws:lambda:ca-west-1:${account}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:1` },
    env: { account, region: 'ca-west-1' },
  },
} satisfies Record<string, VariantSpec>;

export type SynthVariant = keyof typeof SYNTH_VARIANTS;
