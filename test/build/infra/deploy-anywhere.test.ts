import { RegionInfo } from 'aws-cdk-lib/region-info';
import { ONEBOT_QUEUE } from '../../../shared/limits';
import { BLOB_PREFIXES } from '../../../shared/onebot/store/blobs';
import { createTableInput } from '../../../shared/store/table';
import { accessOf, deployedFunctions } from '../../../infra/access';
import { SECRETS_EXTENSION_VERSION } from '../../../infra/platform';
import { SYNTH_VARIANTS, synthError, synthesized, templateIndex } from '../../support/synth';

/** The shipped stack's functions. */
const FUNCTIONS = deployedFunctions();

// One synthesis per region class (test/support/synth): each also carries one of the two removal modes.
const account = SYNTH_VARIANTS.x86Region.env.account;
const layerOf = (region: string, architecture: string) => RegionInfo.get(region).paramsAndSecretsLambdaLayerArn(SECRETS_EXTENSION_VERSION, architecture);

/** The architecture and extension layers of every function of a region's synthesis. */
function platformOf(index: ReturnType<typeof templateIndex>) {
  return FUNCTIONS.map((name) => {
    const props = index.functionProps(name);
    return { name, architectures: props.Architectures, layers: props.Layers ?? [] };
  });
}

function expectPlatform(index: ReturnType<typeof templateIndex>, architecture: string, layerArn: string) {
  for (const { name, architectures, layers } of platformOf(index)) {
    expect({ name, architectures }).toEqual({ name, architectures: [architecture] });
    expect({ name, layers }).toEqual({ name, layers: accessOf(name).secrets.length > 0 ? [layerArn] : [] });
  }
}

describe('a region with the arm64 extension layer (us-east-1), removal=destroy', () => {
  const { region } = SYNTH_VARIANTS.options.env;
  const index = templateIndex(synthesized('options').template);

  test('is the variant with removal=destroy', () => {
    expect(SYNTH_VARIANTS.options.context.removal).toBe('destroy');
  });

  test('every function runs arm64, and the ones that read a secret carry the arm64 layer', () => {
    expectPlatform(index, 'arm64', layerOf(region, 'arm64')!);
  });

  test('the bucket is emptied before it is deleted, and every blob prefix has a lifecycle', () => {
    const [[bucketId, bucket]] = index.ofType('AWS::S3::Bucket');
    expect(bucket.DeletionPolicy).toBe('Delete');
    const [[, autoDelete]] = index.ofType('Custom::S3AutoDeleteObjects');
    expect(autoDelete.Properties!.BucketName).toEqual({ Ref: bucketId });
    const rules: Array<{ Prefix: string; Status: string; ExpirationInDays?: number }> = bucket.Properties.LifecycleConfiguration.Rules;
    expect(rules.map((r) => r.Prefix).sort()).toEqual(Object.values(BLOB_PREFIXES).sort());
    expect(rules.every((r) => r.Status === 'Enabled')).toBe(true);
    // A kept delivery's body outlives its message, dead letter included (SQS counts from the send, after the put).
    const deliveries = rules.find((r) => r.Prefix === BLOB_PREFIXES.deliveries)!;
    expect(deliveries.ExpirationInDays).toBeGreaterThan(Math.max(ONEBOT_QUEUE.retentionDays, ONEBOT_QUEUE.deadLetterRetentionDays));
    // An event's body is its record's data: it never expires while the record may still point at it.
    expect(rules.find((r) => r.Prefix === BLOB_PREFIXES.events)!.ExpirationInDays).toBeUndefined();
  });

  test('nothing that holds data stays behind', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::SQS::Queue', 'AWS::SecretsManager::Secret', 'AWS::S3::Bucket', 'AWS::Logs::LogGroup']) {
      for (const [id, resource] of index.ofType(type)) expect({ id, policy: resource.DeletionPolicy }).toEqual({ id, policy: 'Delete' });
    }
  });
});

describe('a region with the extension for x86_64 only (eu-central-2), removal=retain and an existing table', () => {
  const { region } = SYNTH_VARIANTS.x86Region.env;
  const { tableName } = SYNTH_VARIANTS.x86Region.context;
  const index = templateIndex(synthesized('x86Region').template);

  test('arm64 has no layer there: every function runs x86_64 with the x86_64 layer', () => {
    expect(layerOf(region, 'arm64')).toBeUndefined();
    expectPlatform(index, 'x86_64', layerOf(region, 'x86_64')!);
  });

  test('what holds data or secrets is retained', () => {
    for (const type of ['AWS::SQS::Queue', 'AWS::SecretsManager::Secret', 'AWS::S3::Bucket', 'AWS::Logs::LogGroup']) {
      expect(index.ofType(type).length).toBeGreaterThan(0);
      for (const [id, resource] of index.ofType(type)) expect({ id, policy: resource.DeletionPolicy }).toEqual({ id, policy: 'Retain' });
    }
    expect(index.ofType('Custom::S3AutoDeleteObjects')).toEqual([]);
  });

  test('the existing table is used by name, with the same least-privilege grants on it and its indexes', () => {
    expect(index.ofType('AWS::DynamoDB::GlobalTable')).toEqual([]);
    const tableArn = `arn:aws:dynamodb:${region}:${account}:table/${tableName}`;
    const indexes = (createTableInput('x').GlobalSecondaryIndexes ?? []).length;
    for (const name of FUNCTIONS) {
      const { tableActions } = accessOf(name);
      if (tableActions.length === 0) continue;
      expect(index.functionProps(name).Environment.Variables.TABLE_NAME).toBe(tableName);
      // The stream's ARN names the table too; its reads are the stream's grant (test/build/infra/feed.test.ts), not the table's.
      const onTable = index
        .statementsOf(name)
        .filter((s) => s.resources.some((r) => JSON.stringify(r).includes(`table/${tableName}`) && !JSON.stringify(r).includes('/stream/')));
      expect(new Set(onTable.flatMap((s) => s.actions))).toEqual(new Set(tableActions));
      const resources = onTable.flatMap((s) => s.resources).map((r) => JSON.stringify(r));
      expect(resources.every((r) => r.includes(tableName))).toBe(true);
      if (indexes > 0) expect(resources.some((r) => r.includes('/index/*'))).toBe(true);
    }
    expect(JSON.stringify(index.resources)).not.toContain(`"${tableArn}/*"`);
  });
});

describe('a region aws-cdk-lib knows no extension layer for (ca-west-1)', () => {
  test('synth stops naming the option and where AWS lists the layer ARNs', () => {
    expect(SYNTH_VARIANTS.unknownRegion.env.region).toBe('ca-west-1');
    expect(synthError('unknownRegion')).toMatch(/ca-west-1: deploy with -c secretsLayerArn=.*retrieving-secrets_lambda_ARNs/);
  });

  test('with the layer ARN AWS lists, synth succeeds on the architecture that ARN is for', () => {
    const arn = SYNTH_VARIANTS.unknownRegionWithLayer.context.secretsLayerArn;
    expect(arn).toMatch(/-Arm64:\d+$/);
    expectPlatform(templateIndex(synthesized('unknownRegionWithLayer').template), 'arm64', arn);
  });
});
