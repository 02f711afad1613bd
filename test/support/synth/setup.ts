import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * jest globalSetup of the build project: a folder for this run's syntheses (./index.ts), named in
 * the environment the test workers inherit. Nothing is synthesized until a test asks.
 */
export default function setup(): void {
  process.env.RG_SYNTH_DIR = mkdtempSync(join(tmpdir(), 'recordgate-synth-'));
}

/** jest globalTeardown: the run's syntheses go with it. */
export function teardown(): void {
  if (process.env.RG_SYNTH_DIR) rmSync(process.env.RG_SYNTH_DIR, { recursive: true, force: true });
}
