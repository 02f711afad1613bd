import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { buildTestModelBundles } from './artifact/test-model-bundles';
import startDynalite from './engine-dynalite';

/**
 * jest globalSetup of the artifact project: synthesizes the app once, offline, exactly as
 * `npm run synth` does (bundles into cdk.out), bundles the functions that read the model catalog
 * again with the test models added (for the suites that add models, removed with the run), then
 * starts the engine the bundles will use.
 */
export default async function setup(): Promise<void> {
  try {
    execFileSync('npm', ['run', '--silent', 'synth'], { cwd: path.resolve(__dirname, '../..'), stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run synth failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
  const bundles = await buildTestModelBundles();
  const global = globalThis as Record<string, unknown>;
  global.__rgEngines = [...((global.__rgEngines as unknown[]) ?? []), async () => rmSync(bundles, { recursive: true, force: true })];
  await startDynalite();
}
