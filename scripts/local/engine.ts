import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, type DynamoDBStreamsClientConfig } from '@aws-sdk/client-dynamodb-streams';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { BOUNDED_HTTP } from '../../shared/invocation';
import { ensureTable } from '../../shared/store/table';

/**
 * Starts dynalite in this process (on disk when `path` is given) and returns its endpoint. The
 * stream's retention and iterator lifetime are DynamoDB's unless a test shortens them.
 */
export async function startDynalite(
  options: { path?: string; port?: number; streamRetentionMs?: number; streamIteratorMs?: number } = {},
): Promise<{ endpoint: string; server: Server }> {
  const { port, ...settings } = options;
  const server = dynalite({ ...settings, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? 0, '127.0.0.1', () => resolve());
  });
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export function adminClient(endpoint: string, region = 'us-east-1', config: DynamoDBClientConfig = {}): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region, credentials: LOCAL_CREDENTIALS, ...config });
}

/** The DynamoDB Streams API of a local engine: both serve it on their one endpoint. */
export function streamsClient(endpoint: string, config: DynamoDBStreamsClientConfig = {}): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, ...config });
}

/**
 * Creates the table unless it exists. `once`: one attempt, each call bounded as the service's are
 * (shared/invocation.ts), for an engine that may be down or hung: its caller tries again.
 * `stream: false` for a table no change feed reads (shared/store/table.ts ensureTable).
 */
export async function prepareTable(endpoint: string, tableName: string, { once = false, stream = true } = {}): Promise<boolean> {
  const client = adminClient(endpoint, undefined, once ? { maxAttempts: 1, requestHandler: BOUNDED_HTTP } : {});
  try {
    return await ensureTable(client, tableName, { stream });
  } finally {
    client.destroy();
  }
}
