/**
 * `npm start`: the whole API on localhost. Checks every setting, the port and the data
 * directory before creating anything; starts an embedded DynamoDB engine (dynalite, data kept
 * in DATA_DIR) unless DYNAMODB_ENDPOINT names another, creates the table if missing, checks and
 * records every model's layout (refusing to start on a change the stored records cannot follow,
 * building new indexes in the background) and serves
 * every route through the same handlers Lambda runs. SIGTERM/SIGINT, or the end of the process
 * that started it, drain before stopping (docs/local-server.md).
 */
import { resolve } from 'node:path';
import { ROUTES } from '../shared/http/routes';
import { cursorKeyOf } from './local/cursor-key';
import { prepareTable, startDynalite } from './local/engine';
import { startLocalServer } from './local/server';
import { drain, DRAIN_MS, FORCING_SIGNAL, RequestTracker, watchParent } from './local/shutdown';
import { buildInBackground, checkDataDir, checkPort, loadModels, readConfig, recordModelLayouts, StartupError } from './local/startup';

async function main(): Promise<void> {
  const config = readConfig(process.env, (dir) => resolve(dir));
  const models = loadModels();
  await checkPort(config.host, config.port);
  await checkDataDir(config.dataDir);
  process.env.TABLE_NAME = config.tableName;
  process.env.CURSOR_SECRET ||= cursorKeyOf(config.dataDir);

  let engine: Awaited<ReturnType<typeof startDynalite>> | undefined;
  if (!config.endpoint) {
    engine = await startDynalite({ path: config.dataDir });
    process.env.DYNAMODB_ENDPOINT = engine.endpoint;
    console.log(`embedded DynamoDB (dynalite) on ${engine.endpoint}, data in ${config.dataDir}`);
  }
  const endpoint = process.env.DYNAMODB_ENDPOINT!;
  const created = await prepareTable(endpoint, config.tableName).catch((error: Error) => {
    throw new StartupError(
      `cannot reach DynamoDB at ${endpoint} (${error.name}: ${error.message}); start it, or unset DYNAMODB_ENDPOINT for the embedded engine`,
    );
  });
  console.log(`table ${config.tableName} ${created ? 'created' : 'found'} at ${endpoint}`);
  const building = await recordModelLayouts(models);
  // OneBot events kept while the database was unreachable (a previous run's too) are stored now.
  // Loaded after the models were checked: the receiver's modules declare the OneBot models as they load.
  (await import('../shared/onebot/replay')).scheduleDrain();
  const { server, url } = await startLocalServer({ port: config.port, host: config.host });
  const requests = new RequestTracker(server);
  console.log(`recordgate listening on ${url}`);
  console.log(config.tokens ? `auth: on, ${config.tokens.length} API token(s) from API_TOKENS` : 'auth: no API_TOKENS set, open on loopback only');
  console.log(
    `models: ${models
      .filter((m) => m.access !== 'hidden')
      .map((m) => m.name)
      .join(', ')}`,
  );
  for (const route of ROUTES) console.log(`  ${route.method.padEnd(4)} ${url}${route.path}`);
  void buildInBackground(building, (line) => console.log(line));

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${why}: no new connections; ${requests.inFlight} request(s) in flight get up to ${DRAIN_MS / 1000} s to finish`);
    // Whatever still stands between the engine and a clean close (an SDK keep-alive socket, a cut
    // request's last call) must not keep the process alive: its connections go, LevelDB still
    // finishes the writes it started, and the exit comes within a bound no matter what.
    setTimeout(() => process.exit(1), DRAIN_MS + 15_000).unref();
    const closeEngine = () =>
      engine
        ? new Promise<void>((done) => {
            engine!.server.close(() => done());
            engine!.server.closeAllConnections();
          })
        : Promise.resolve();
    const { drained, cut } = await drain(server, requests, closeEngine);
    console.log(`stopped: ${drained} request(s) drained${cut > 0 ? `, ${cut} cut off after ${DRAIN_MS / 1000} s` : ''}, engine closed`);
    process.exit(cut > 0 ? 1 : 0);
  };
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals >= FORCING_SIGNAL) {
      console.log(`${signal} (${signals} signals): stopping now, ${requests.inFlight} request(s) cut off`);
      process.exit(1);
    }
    if (stopping) return console.log(`${signal} again: still draining ${requests.inFlight} request(s); a third signal stops at once and cuts them`);
    void stop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  watchParent((parent) => void stop(`the process that started this one (${parent}) exited`));
}

main().catch((error) => {
  // One line that names the problem and its fix; a stack only for what was not foreseen.
  console.error(error instanceof StartupError ? `recordgate cannot start: ${error.message}` : error);
  process.exit(1);
});
