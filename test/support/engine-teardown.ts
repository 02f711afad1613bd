/** jest globalTeardown: stops whatever engines the global setups started (and removes the artifact project's test-model bundles). */
export default async function teardown(): Promise<void> {
  const engines = ((globalThis as Record<string, unknown>).__rgEngines as Array<() => Promise<unknown>>) ?? [];
  (globalThis as Record<string, unknown>).__rgEngines = [];
  await Promise.all(engines.map((stop) => stop()));
}
