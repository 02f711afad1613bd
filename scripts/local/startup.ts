import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { parseTokenTable, type TokenTable } from '../../shared/auth/tokens';
import { DEFAULT_TABLE_NAME, tableNameProblem } from '../../shared/config';
import { allModels } from '../../shared/models/every-model';
import { InvalidModelDefinition, type Model } from '../../shared/models/define';
import { LayoutMismatch } from '../../shared/store/errors';
import { buildIndexes, recordLayout } from '../../shared/store/layout/index-build';
import { aggregatesBuilding } from '../../shared/store/layout/layout';
import { backfillAggregates, buildingAggregates } from '../../shared/aggregates/backfill';

/** A start-up problem, said in one line with its fix; serve.ts prints it and exits 1. */
export class StartupError extends Error {}

export interface LocalConfig {
  port: number;
  host: string;
  dataDir: string;
  endpoint?: string;
  tableName: string;
  tokens?: TokenTable;
}

/** Reads and checks every setting before anything is created. */
export function readConfig(env: NodeJS.ProcessEnv, resolveDir: (dir: string) => string): LocalConfig {
  const port = Number(env.PORT ?? 3000);
  if (!/^\d{1,5}$/.test(env.PORT ?? '3000') || port > 65535) {
    throw new StartupError(`PORT=${JSON.stringify(env.PORT)} is not a port number; set PORT to 0-65535 (0: any free port)`);
  }
  const tableName = env.TABLE_NAME ?? DEFAULT_TABLE_NAME;
  const tableNameIs = tableNameProblem(tableName);
  if (tableNameIs) throw new StartupError(`TABLE_NAME=${JSON.stringify(tableName)} ${tableNameIs}`);
  const endpoint = env.DYNAMODB_ENDPOINT || undefined;
  if (endpoint !== undefined && !URL.canParse(endpoint)) {
    throw new StartupError(
      `DYNAMODB_ENDPOINT=${JSON.stringify(endpoint)} is not a URL; set it like http://127.0.0.1:8000, or unset it for the embedded engine`,
    );
  }
  let tokens: TokenTable | undefined;
  if (env.API_TOKENS) {
    try {
      tokens = parseTokenTable(env.API_TOKENS);
    } catch (error) {
      throw new StartupError(
        `${(error as Error).message}; fix API_TOKENS, e.g. API_TOKENS='{"s3cr3t": ["read", "write", "admin"], "t-ann": {"scopes": ["read", "write"], "sub": "ann"}}', or unset it`,
      );
    }
  }
  return { port, host: env.HOST ?? '127.0.0.1', dataDir: resolveDir(env.DATA_DIR ?? '.data'), endpoint, tableName, tokens };
}

/**
 * Loads every model, each checked as it is declared (shared/models/define.ts): a definition the
 * service cannot serve stops the start in one line, before the engine or the table is touched.
 */
export function loadModels(): Model[] {
  try {
    return allModels();
  } catch (error) {
    if (!(error instanceof InvalidModelDefinition)) throw error;
    throw new StartupError(`${error.message}; fix the model's definition (shared/models/)`);
  }
}

/** Fails when another process holds the port, before the engine or the table is touched. */
export async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((done, fail) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const fix =
        error.code === 'EADDRINUSE'
          ? `another program uses it; stop it or start with PORT=${port + 1}`
          : `${error.code ?? error.message}; set HOST and PORT to an address this machine can listen on`;
      fail(new StartupError(`cannot listen on ${host}:${port}: ${fix}`));
    });
    probe.listen(port, host, () => probe.close(() => done()));
  });
}

/**
 * Creates the data directory and proves nobody else has it open: LevelDB's own LOCK file is
 * taken and let go again (a second npm start on one folder got "Database is closed" later on).
 */
export async function checkDataDir(dataDir: string): Promise<void> {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new StartupError(`cannot create DATA_DIR ${dataDir}: ${(error as NodeJS.ErrnoException).code}; set DATA_DIR to a folder you can write`);
  }
  // The LevelDB binding dynalite itself uses, so the lock is the very one it will take.
  const { Level } = createRequire(require.resolve('dynalite'))('level') as { Level: new (path: string) => { open(): Promise<void>; close(): Promise<void> } };
  const db = new Level(dataDir);
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') {
      throw new StartupError(`DATA_DIR ${dataDir} is in use by another npm start; stop that one, or give this one another DATA_DIR`);
    }
    throw new StartupError(
      `cannot open the data in DATA_DIR ${dataDir}: ${(cause as Error | undefined)?.message ?? (error as Error).message}; move the folder away to start empty`,
    );
  }
  await db.close();
}

/**
 * Compares every model's definition with the layout its stored records have, and records it
 * (shared/store/layout/index-build.ts): a change the records cannot follow stops the start, naming each
 * model, the change and the fix. Returns the models with an index still to build or an aggregate to backfill.
 */
export async function recordModelLayouts(models: ReadonlyArray<Model>): Promise<Model[]> {
  const refused: string[] = [];
  const building: Model[] = [];
  for (const model of models) {
    try {
      const layout = await recordLayout(model);
      if (layout.building.length > 0 || aggregatesBuilding(layout)) building.push(model);
    } catch (error) {
      if (!(error instanceof LayoutMismatch)) throw error;
      refused.push(error.message);
    }
  }
  if (refused.length > 0) throw new StartupError(refused.join('\n'));
  return building;
}

/**
 * Builds the new indexes and backfills the new aggregates in the background while the server
 * answers (reads do not use them until they are ready), a page at a time; a stop or a crash
 * resumes at the next start.
 */
export async function buildInBackground(models: ReadonlyArray<Model>, say: (line: string) => void): Promise<void> {
  for (const model of models) {
    const started = Date.now();
    const layout = await recordLayout(model);
    const what = [
      ...(layout.building.length > 0 ? [`the index of ${layout.building.join(', ')}`] : []),
      ...buildingAggregates(model, layout).map((name) => `the aggregate ${name}`),
    ].join(' and ');
    say(`model ${model.name}: building ${what} for its stored records`);
    try {
      const { layout: indexed, filled } = await buildIndexes(model);
      const { layout: counted, applied } = await backfillAggregates(model);
      const seconds = (Date.now() - started) / 1000;
      const incomplete = indexed.building.length > 0 || buildingAggregates(model, counted).length > 0;
      say(`model ${model.name}: ready (${filled} records indexed, ${applied} counted, in ${seconds.toFixed(1)} s${incomplete ? ', incomplete' : ''})`);
    } catch (error) {
      say(`model ${model.name}: the build stopped (${(error as Error).message}); it resumes at the next start`);
    }
  }
}
