/**
 * `npm start`: the whole API on localhost. Starts an embedded DynamoDB engine (dynalite, data
 * kept in DATA_DIR) unless DYNAMODB_ENDPOINT names another, creates the table if missing and
 * serves every route through the same handlers Lambda runs.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadTokenTable } from '../shared/auth/tokens';
import { MODELS } from '../shared/models/registry';
import { ROUTES } from '../shared/http/routes';
import { scheduleDrain } from '../shared/onebot/spool';
import { prepareTable, startDynalite } from './local/engine';
import { startLocalServer } from './local/server';

async function main(): Promise<void> {
  // The SDK is pinned to a release that supports Node 20 (docs/decisions.md); its upgrade notice is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  process.env.TABLE_NAME ??= 'recordgate';
  let engine: Awaited<ReturnType<typeof startDynalite>> | undefined;
  if (!process.env.DYNAMODB_ENDPOINT) {
    const dataDir = resolve(process.env.DATA_DIR ?? '.data');
    mkdirSync(dataDir, { recursive: true });
    engine = await startDynalite({ path: dataDir });
    process.env.DYNAMODB_ENDPOINT = engine.endpoint;
    console.log(`embedded DynamoDB (dynalite) on ${engine.endpoint}, data in ${dataDir}`);
  }
  const created = await prepareTable(process.env.DYNAMODB_ENDPOINT, process.env.TABLE_NAME);
  console.log(`table ${process.env.TABLE_NAME} ${created ? 'created' : 'found'} at ${process.env.DYNAMODB_ENDPOINT}`);
  // OneBot events kept while the database was unreachable (a previous run's too) are stored now.
  scheduleDrain();
  // Loaded now so that a malformed API_TOKENS stops the start instead of failing every request.
  const tokens = await loadTokenTable();
  const { server, url } = await startLocalServer({ port, host });
  console.log(`recordgate listening on ${url}`);
  console.log(tokens ? `auth: on, ${tokens.length} API token(s) from API_TOKENS` : 'auth: no API_TOKENS set, open on loopback only');
  console.log(`models: ${MODELS.filter((m) => m.access !== 'hidden').map((m) => m.name).join(', ')}`);
  for (const route of ROUTES) console.log(`  ${route.method.padEnd(4)} ${url}${route.path}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: shutting down`);
    server.close();
    server.closeIdleConnections();
    const closeEngine = engine ? new Promise<void>((done) => engine!.server.close(() => done())) : Promise.resolve();
    void closeEngine.then(() => process.exit(0));
    setTimeout(() => process.exit(0), 3_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
