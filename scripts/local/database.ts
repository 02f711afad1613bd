import type { Model } from '../../shared/models/define';
import { isTimeout, isUnavailable } from '../../shared/store/sdk-errors';
import { prepareTable } from './engine';
import { recordModelLayouts, StartupError } from './startup';

/** How often a start that found the database out of reach tries it again. */
export const DATABASE_RETRY_MS = 2_000;

/** What the start-up checks found once the database answered. */
export interface PreparedDatabase {
  created: boolean;
  /** The models with an index still to build. */
  building: Model[];
}

/** The database out of reach for now (refused, hung, overloaded): waited out, not a reason to refuse the start. */
export const isOutage = (error: unknown): boolean => isTimeout(error) || isUnavailable(error);

/**
 * The start-up checks that need the database: the table made if missing, every model's layout
 * compared and recorded (startup.ts). An outage is thrown as it is, for the caller to wait out;
 * anything else is a StartupError, one line with its fix. `external`: an engine npm start did not
 * start itself, tried once with each call bounded, since it may be down or hung.
 */
export async function prepareDatabase(endpoint: string, tableName: string, models: ReadonlyArray<Model>, external: boolean): Promise<PreparedDatabase> {
  const created = await prepareTable(endpoint, tableName, { once: external }).catch((error: Error) => {
    if (isOutage(error)) throw error;
    throw new StartupError(
      `DynamoDB at ${endpoint} refused the table check (${error.name}: ${error.message}); fix the engine there, or unset DYNAMODB_ENDPOINT for the embedded engine`,
    );
  });
  return { created, building: await recordModelLayouts(models) };
}

/** Runs `prepare` until the database answers, every DATABASE_RETRY_MS while it is out of reach; a StartupError or any other failure ends it. */
export async function untilPrepared(prepare: () => Promise<PreparedDatabase>): Promise<PreparedDatabase> {
  for (;;) {
    try {
      return await prepare();
    } catch (error) {
      if (!isOutage(error)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, DATABASE_RETRY_MS));
  }
}
