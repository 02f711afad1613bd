/**
 * One function's bundle with a team's models (infra/function-bundle.ts), in a process of its
 * own: CDK bundles synchronously, and esbuild runs plugins only in its asynchronous build. Reads
 * `{name, outputDir, entry, source}` as JSON on stdin; exits 1 with esbuild's message on failure.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';
import { buildOptionsFor } from '../infra/esbuild-options';
import { type ServedModelsSource, servedModelsPlugin } from './bundle-catalog';

const { name, outputDir, entry, source } = JSON.parse(readFileSync(0, 'utf8')) as {
  name: string;
  outputDir: string;
  entry: string;
  source: ServedModelsSource;
};
build({ ...buildOptionsFor(name, outputDir, entry), absWorkingDir: path.resolve(__dirname, '..'), plugins: [servedModelsPlugin(source)] }).catch(() => {
  process.exitCode = 1;
});
