import { startDynalite } from '../../scripts/local/engine';

/** jest globalSetup: one in-memory dynalite for the whole run; each test file makes its own table. */
export default async function setup(): Promise<void> {
  const { endpoint, server } = await startDynalite();
  process.env.RG_TEST_DYNALITE_ENDPOINT = endpoint;
  (globalThis as Record<string, unknown>).__rgEngines = [
    ...(((globalThis as Record<string, unknown>).__rgEngines as unknown[]) ?? []),
    () => new Promise((r) => server.close(r)),
  ];
}
