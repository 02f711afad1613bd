import { resolve } from 'node:path';
import { startDynalite, prepareTable } from '../local/engine';
import { checkDataDir, readConfig, StartupError } from '../local/startup';

/** Where the records are: the engine `npm start` uses, a DynamoDB-compatible endpoint, or the table in AWS. */
export interface Where {
  endpoint?: string;
  aws?: boolean;
}

export interface OpenTable {
  /** Said in the summary: which table of which engine was read or written. */
  name: string;
  close(): void;
}

/**
 * Points the store (shared/store/client.ts reads DYNAMODB_ENDPOINT and TABLE_NAME) at the table.
 * In AWS, TABLE_NAME is the stack's output and the SDK's default credentials sign the calls;
 * otherwise it is `npm start`'s embedded engine in DATA_DIR (which cannot be opened while a
 * server holds it), or the engine at `endpoint` (or DYNAMODB_ENDPOINT). `create`: a local table
 * is created when missing, as `npm start` does; the stack owns the table in AWS.
 */
export async function openTable(where: Where, { create }: { create: boolean }): Promise<OpenTable> {
  if (where.aws) {
    if (where.endpoint) throw new StartupError('--aws and --endpoint name two places: give one');
    if (!process.env.TABLE_NAME) throw new StartupError("--aws needs TABLE_NAME: the stack's TableName output");
    // Without it the store would take us-east-1 (shared/config.ts), not the profile's region: a table there would be another one.
    if (!process.env.AWS_REGION) throw new StartupError("--aws needs AWS_REGION: the stack's region");
    delete process.env.DYNAMODB_ENDPOINT;
    return { name: `${process.env.TABLE_NAME} in AWS`, close: () => undefined };
  }
  if (where.endpoint !== undefined) process.env.DYNAMODB_ENDPOINT = where.endpoint;
  const config = readConfig(process.env, (dir) => resolve(dir));
  process.env.TABLE_NAME = config.tableName;
  let endpoint = config.endpoint;
  let close: () => void = () => undefined;
  if (!endpoint) {
    await checkDataDir(config.dataDir);
    const engine = await startDynalite({ path: config.dataDir });
    endpoint = engine.endpoint;
    process.env.DYNAMODB_ENDPOINT = endpoint;
    close = () => engine.server.close();
  }
  if (create) await prepareTable(endpoint, config.tableName);
  return { name: `${config.tableName} at ${config.endpoint ?? config.dataDir}`, close };
}
