import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import startDynalite from './engine-dynalite';

/**
 * jest globalSetup of the artifact project: synthesizes the app once, offline, exactly as
 * `npm run synth` does (bundles into cdk.out), then starts the engine the bundles will use.
 */
export default async function setup(): Promise<void> {
  try {
    execFileSync('npm', ['run', '--silent', 'synth'], { cwd: path.resolve(__dirname, '../..'), stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run synth failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
  await startDynalite();
}
