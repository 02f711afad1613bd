import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../shared/config';
import { db } from '../../shared/store/client';

type Item = Record<string, unknown>;

/**
 * Every item of this test file's table, in key order, read with a consistent Scan (a test may
 * scan its own table; the service never does). Comparing two snapshots proves that a request
 * changed nothing anywhere in the table, not only in the model it named.
 */
export async function tableSnapshot(client: DynamoDBDocumentClient = db()): Promise<Item[]> {
  const items: Item[] = [];
  let next: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: settings().TABLE_NAME, ConsistentRead: true, ExclusiveStartKey: next }));
    items.push(...(page.Items ?? []));
    next = page.LastEvaluatedKey;
  } while (next);
  const key = (item: Item) => `${String(item.pk)}\u0001${String(item.sk)}`;
  return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * A client of the engine itself, for a test whose service reaches the engine through a proxy
 * that loses or delays calls: what is stored is read past the faults.
 */
export const engineClient = (endpoint: string): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: settings().AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'DescribeTable']);

/**
 * The table as it is now, scanned again only after the service sent a command that may have
 * changed it. Property tests send hundreds of requests, almost all refused before any write;
 * scanning around each cost two full Scans per run. Every command other than a read is
 * counted when it is attempted, before DynamoDB answers, so a write whose answer was lost or
 * that was undone again still forces a fresh Scan and the comparison still sees its effect.
 */
export function watchedTable(): () => Promise<Item[]> {
  let attemptedWrites = 0;
  let scannedAt = -1;
  let known: Item[] = [];
  db().middlewareStack.add(
    (next, context) => (args) => {
      if (!READS.has(String(context.commandName ?? '').replace(/Command$/, ''))) attemptedWrites += 1;
      return next(args);
    },
    { step: 'initialize', name: 'watchedTableWrites' },
  );
  return async () => {
    if (scannedAt !== attemptedWrites) {
      scannedAt = attemptedWrites;
      known = await tableSnapshot();
    }
    return known;
  };
}
