import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableV2, type Attribute, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { createTableInput, TTL_ATTRIBUTE } from '../shared/store/table';

const attributeTypes: Record<string, AttributeType> = { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY };

/**
 * The one table, built from the same description the local engines are created from
 * (shared/store/table.ts), so the deployed keys and indexes cannot drift from the code's.
 */
export class RecordTable extends Construct {
  readonly table: ITableV2;

  /** `existingName`: a table this stack does not own (a retained one), re-attached with the same indexes and grants. */
  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy; existingName?: string; existingStreamArn?: string }) {
    super(scope, id);
    const input = createTableInput('unused');
    if (props.existingName) {
      // Naming the indexes makes the grants cover <table>/index/* as they do for an owned table.
      const globalIndexes = (input.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName!);
      this.table = TableV2.fromTableAttributes(this, 'Table', { tableName: props.existingName, globalIndexes, tableStreamArn: props.existingStreamArn });
      return;
    }
    const attribute = (name: string): Attribute => {
      const definition = input.AttributeDefinitions!.find((d) => d.AttributeName === name);
      if (!definition) throw new Error(`key attribute ${name} has no definition`);
      return { name, type: attributeTypes[definition.AttributeType!] };
    };
    const keyOf = (schema: NonNullable<typeof input.KeySchema>) => ({
      partitionKey: attribute(schema.find((k) => k.KeyType === 'HASH')!.AttributeName!),
      sortKey: attribute(schema.find((k) => k.KeyType === 'RANGE')!.AttributeName!),
    });

    this.table = new TableV2(this, 'Table', {
      ...keyOf(input.KeySchema!),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // A dev stack (removal=destroy) must be deletable by `cdk destroy`; anything else is guarded twice.
      deletionProtection: props.removalPolicy !== RemovalPolicy.DESTROY,
      removalPolicy: props.removalPolicy,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // The change feed's source (infra/feed.ts): both images, so a change tells before and after.
      // Added to a deployed table in place (UpdateTable), not by replacing it: test/build/infra/feed.test.ts.
      dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
      globalSecondaryIndexes: (input.GlobalSecondaryIndexes ?? []).map((index) => {
        if (index.Projection?.ProjectionType !== 'ALL') throw new Error(`index ${index.IndexName} must project ALL`);
        return { indexName: index.IndexName!, ...keyOf(index.KeySchema!) };
      }),
    });
  }
}
