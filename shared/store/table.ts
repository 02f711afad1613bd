import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type StreamViewType,
} from '@aws-sdk/client-dynamodb';
import { LIMITS } from '../limits';
import type { SystemField } from '../models/model';

/**
 * The one table's shape, read by the store, the local server, the tests and the CDK stack.
 * Items of a model live under `pk = <model>#<shard>`, `sk = <id>`. Index slot N (gsiN) holds
 * the model's N-th indexed field: `gNpk = <model>#<field>#<shard>`, `gNsk = <sortable value>\0<id>`.
 */
export const TABLE_KEY = { partitionKey: 'pk', sortKey: 'sk' } as const;

/**
 * The model's data, one map in the record's item. Beside it the item holds its keys, `id` and
 * the system fields under the names the API gives them (SYSTEM_FIELDS, so filters reach them as
 * they are), the write token and, for models with a retention, the expiry.
 */
export const DATA_ATTRIBUTE = 'd';

/** The system fields the store writes, stored under their SYSTEM_FIELDS names: a typo is a type error. */
export const CREATED_ATTRIBUTE = '_created_at' satisfies SystemField;
export const UPDATED_ATTRIBUTE = '_updated_at' satisfies SystemField;
/** Starts at 1, one more per write: every write is conditional on the version it read. */
export const VERSION_ATTRIBUTE = '_version' satisfies SystemField;

/** Every write stamps its own token here (never shown): see shared/store/write/write-token.ts. */
export const WRITE_TOKEN_ATTRIBUTE = '_w';

/** The Idempotency-Key runs that wrote the item, newest last (never shown): see shared/store/write/write-token.ts rememberedAfter. */
export const KEY_RUNS_ATTRIBUTE = '_k';

/**
 * The request that made the item's last write, and its caller's digest (shared/auth/authorize.ts
 * `subject`): never shown, read only by the change feed from the stream's new image (shared/feed/).
 */
export const REQUEST_ATTRIBUTE = '_rq';
export const SUBJECT_ATTRIBUTE = '_by';

/** Epoch seconds after which DynamoDB's TTL deletes an item (models with a retention only). */
export const TTL_ATTRIBUTE = '_ttl';

export interface IndexSlot {
  indexName: string;
  partitionKey: string;
  sortKey: string;
}

export const INDEX_SLOTS: ReadonlyArray<IndexSlot> = Array.from({ length: LIMITS.maxIndexedFields }, (_, i) => ({
  indexName: `gsi${i + 1}`,
  partitionKey: `g${i + 1}pk`,
  sortKey: `g${i + 1}sk`,
}));

/**
 * The table's stream, which the change feed reads (shared/feed/): both images, so a change can
 * carry `before` and `after`. The deployed table and both local engines have it.
 */
export const STREAM_VIEW_TYPE = 'NEW_AND_OLD_IMAGES' satisfies StreamViewType;

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [TABLE_KEY.partitionKey, TABLE_KEY.sortKey, ...INDEX_SLOTS.flatMap((s) => [s.partitionKey, s.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_KEY.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEY.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: INDEX_SLOTS.map((slot) => ({
      IndexName: slot.indexName,
      KeySchema: [
        { AttributeName: slot.partitionKey, KeyType: 'HASH' },
        { AttributeName: slot.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

/**
 * Creates the table unless it exists, and waits until it is active. A table made before the
 * change feed (a `.data` of an earlier version) gets its stream here: the feed tells the writes
 * from then on. Returns whether it created the table.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, { stream: withStream = true } = {}): Promise<boolean> {
  let created = false;
  // `stream: false`: a table no change feed reads (the suites that test no feed: DynamoDB Local
  // writes each stream record too, and pays for it on every write of a long test run).
  const { StreamSpecification, ...withoutStream } = createTableInput(tableName);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const stream = Table?.StreamSpecification;
    // Its images are what a change's before and after are made of; changing the view type takes a new stream.
    if (stream?.StreamEnabled && stream.StreamViewType !== STREAM_VIEW_TYPE)
      throw new Error(
        `table ${tableName} has a stream of ${stream.StreamViewType}, and the change feed needs ${STREAM_VIEW_TYPE}: disable its stream (UpdateTable StreamSpecification StreamEnabled=false) and start again`,
      );
    if (withStream && !stream?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification }));
    }
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await client.send(new CreateTableCommand(withStream ? { ...withoutStream, StreamSpecification } : withoutStream));
    created = true;
  }
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesReady = (Table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesReady) return created;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`table ${tableName} did not become active`);
}
