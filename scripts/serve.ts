/**
 * `npm start`: the whole API on localhost. Checks every setting, every model's definition, the
 * port and the data directory before creating anything; starts an embedded DynamoDB engine
 * (dynalite, data kept in DATA_DIR) unless DYNAMODB_ENDPOINT names another, creates the table if
 * missing, checks and records every model's layout (refusing to start on a change the stored
 * records cannot follow, building new indexes in the background) and serves every route through
 * the same handlers Lambda runs. An engine out of reach is waited for while the server answers
 * (the table's routes 503, OneBot deliveries kept). SIGTERM/SIGINT, or the end of the process
 * that started it, drain before stopping (docs/local-server.md).
 */
import { resolve } from 'node:path';
import { ROUTES } from '../shared/manifest/routes';
import { cursorKeyOf } from './local/cursor-key';
import { spoolDir } from '../shared/onebot/keep/spool';
import { DATABASE_RETRY_MS, isOutage, prepareDatabase, untilPrepared, type PreparedDatabase } from './local/database';
import { startDynalite } from './local/engine';
import { startLocalServer } from './local/server';
import { scheduleDrain } from './local/spool-drain';
import { drain, DRAIN_MS, FORCING_SIGNAL, RequestTracker, watchParent } from './local/shutdown';
import { type LocalFeed, readSubscriptions, startLocalFeed } from './local/feed';
import { buildInBackground, checkDataDir, checkPort, loadModels, readConfig, StartupError } from './local/startup';

async function main(): Promise<void> {
  const config = readConfig(process.env, (dir) => resolve(dir));
  const models = loadModels();
  const subscriptions = await readSubscriptions(process.env.SUBSCRIPTIONS);
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
  const prepare = () => prepareDatabase(endpoint, config.tableName, models, engine === undefined);
  // An engine out of reach is waited out while the server answers (docs/local-server.md): every
  // OneBot delivery refused meanwhile would be lost, since no sender re-sends.
  let database: PreparedDatabase | undefined;
  try {
    database = await prepare();
  } catch (error) {
    if (!isOutage(error)) throw error;
    console.log(
      `DynamoDB at ${endpoint} does not answer (${(error as Error).name}: ${(error as Error).message}); serving anyway: the routes that use the table answer 503 database_unavailable and OneBot deliveries are kept in ${spoolDir()} until it does; trying again every ${DATABASE_RETRY_MS / 1000} s`,
    );
  }
  let feed: LocalFeed | undefined;
  const reached = ({ created }: PreparedDatabase) => {
    console.log(`table ${config.tableName} ${created ? 'created' : 'found'} at ${endpoint}`);
    // OneBot events kept while the database was unreachable (a previous run's too) are stored now.
    scheduleDrain();
    // Aggregates are kept from the feed's consumer: a model declaring one runs it without a subscription too.
    const aggregated = models.filter((m) => Object.keys(m.aggregates).length > 0).map((m) => `aggregates of ${m.name}`);
    if (subscriptions.length === 0 && aggregated.length === 0) return;
    // From the stream's checkpoint in DATA_DIR: what a previous run committed but did not hand on is handed on now.
    feed = startLocalFeed({ endpoint, tableName: config.tableName, dataDir: config.dataDir, subscriptions });
    console.log(`change feed: ${[...subscriptions.map((s) => s.name), ...aggregated].join(', ')}`);
  };
  if (database) reached(database);
  const { server, url } = await startLocalServer({ port: config.port, host: config.host, databaseReady: () => database !== undefined });
  const requests = new RequestTracker(server);
  let stopping = false;
  const stop = async (why: string, exitCode = 0) => {
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
    // The feed stops before the engine closes: its batch in hand keeps its checkpoint, its attempts their outcome.
    const { drained, cut } = await drain(server, requests, async () => {
      await feed?.stop();
      await closeEngine();
    });
    console.log(`stopped: ${drained} request(s) drained${cut > 0 ? `, ${cut} cut off after ${DRAIN_MS / 1000} s` : ''}, engine closed`);
    process.exit(cut > 0 ? 1 : exitCode);
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
  // Said only once a signal would be handled: whoever waits for this line may stop the server at once.
  console.log(`recordgate listening on ${url}`);
  console.log(config.tokens ? `auth: on, ${config.tokens.length} API token(s) from API_TOKENS` : 'auth: no API_TOKENS set, open on loopback only');
  console.log(
    `models: ${models
      .filter((m) => m.access !== 'hidden')
      .map((m) => m.name)
      .join(', ')}`,
  );
  for (const route of ROUTES) console.log(`  ${route.method.padEnd(4)} ${url}${route.path}`);
  if (database) void buildInBackground(database.building, (line) => console.log(line));

  if (database) return;
  untilPrepared(prepare).then(
    (prepared) => {
      reached(prepared);
      database = prepared;
      console.log('database reached: every route is served');
      void buildInBackground(prepared.building, (line) => console.log(line));
    },
    // A model layout its records cannot follow, found once the database answered: refused as at
    // any start, after what is in flight (OneBot deliveries kept meanwhile stay in the spool).
    (error: unknown) => {
      console.error(cannotStart(error));
      void stop('the start-up checks failed', 1);
    },
  );
}

/** One line that names the problem and its fix; a stack only for what was not foreseen. */
const cannotStart = (error: unknown) => (error instanceof StartupError ? `recordgate cannot start: ${error.message}` : error);

main().catch((error) => {
  console.error(cannotStart(error));
  process.exit(1);
});
