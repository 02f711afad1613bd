import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../shared/config';
import { db } from '../../shared/store/client';

/**
 * Every item of this test file's table, in key order, read with a consistent Scan (a test may
 * scan its own table; the service never does). Comparing two snapshots proves that a request
 * changed nothing anywhere in the table, not only in the model it named.
 */
export async function tableSnapshot(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let next: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: settings().TABLE_NAME, ConsistentRead: true, ExclusiveStartKey: next }));
    items.push(...(page.Items ?? []));
    next = page.LastEvaluatedKey;
  } while (next);
  const key = (item: Record<string, unknown>) => `${String(item.pk)}\u0001${String(item.sk)}`;
  return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
