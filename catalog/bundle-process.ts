/**
 * Functions' bundles with a team's models (infra/function-bundle.ts), in a process of their own:
 * CDK bundles synchronously, and esbuild runs plugins only in its asynchronous build. Reads
 * `{builds: [{name, outputDir, entry}], source}` as JSON on stdin and builds them together;
 * exits 1 with esbuild's message on failure.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';
import { buildOptionsFor } from '../infra/esbuild-options';
import { type ServedModelsSource, servedModelsPlugin } from './bundle-catalog';

const { builds, source } = JSON.parse(readFileSync(0, 'utf8')) as {
  builds: Array<{ name: string; outputDir: string; entry: string }>;
  source: ServedModelsSource;
};
const plugins = [servedModelsPlugin(source)];
Promise.all(
  builds.map(({ name, outputDir, entry }) => build({ ...buildOptionsFor(name, outputDir, entry), absWorkingDir: path.resolve(__dirname, '..'), plugins })),
).catch(() => {
  process.exitCode = 1;
});
