import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { ensureTable } from '../../shared/store/table';

/** Starts dynalite in this process (on disk when `path` is given) and returns its endpoint. */
export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<{ endpoint: string; server: Server }> {
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, server };
}

export function adminClient(endpoint: string, region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

export async function prepareTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = adminClient(endpoint);
  try {
    return await ensureTable(client, tableName);
  } finally {
    client.destroy();
  }
}
