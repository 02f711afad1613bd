/**
 * `recordgate dev [--models <path>] [--port <n>] [--reaction]`: `npm start` for a project that
 * has recordgate as a dependency (docs/deploying.md, "Adopting recordgate without forking it"). The same server,
 * engine and settings (DATA_DIR, API_TOKENS, SUBSCRIPTIONS... as docs/local-server.md lists them),
 * serving the team's models from a module of defineModel exports or a folder of them, beside the
 * OneBot models (and reaction with --reaction): the models a RecordGate construct given the same
 * choice deploys.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { InvalidModelDefinition } from '../shared/models/define';
import { serveInThisProcess } from '../catalog/in-process';
import { TeamModelsInvalid } from '../catalog/served-models';

const USAGE = 'usage: recordgate dev [--models <module or folder>] [--port <n>] [--reaction]';

/** A command line this command does not take. */
class UsageError extends Error {}

/** What stops the start before anything is created, told in one line with its fix. */
class CannotStart extends Error {}

/** The command line, checked: a mistake is told in one line with the usage, before anything starts. */
function readArguments(args: ReadonlyArray<string>): { models?: string; port?: string; reaction?: boolean } {
  const [command, ...rest] = args;
  if (command !== 'dev') throw new UsageError(command === undefined ? 'no command given' : `no command ${command}`);
  const read: { models?: string; port?: string; reaction?: boolean } = {};
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    if (flag === '--reaction') read.reaction = true;
    else if ((flag === '--models' || flag === '--port') && rest[i + 1] !== undefined) read[flag === '--models' ? 'models' : 'port'] = rest[++i];
    else throw new UsageError(`${flag} is not an option here, or lacks its value`);
  }
  return read;
}

/**
 * The embedded engine answers as DynamoDB does only with recordgate's patches of dynalite
 * (patches/, docs/decisions.md), which the forked layout's install applies and a project's
 * install of recordgate does not: npm runs a dependency's postinstall in the dependency's own
 * folder, and patch-package patches the project it runs in. The last patch adds db/stream.js.
 */
function checkEnginePatched(): void {
  if (process.env.DYNAMODB_ENDPOINT) return;
  if (existsSync(path.join(path.dirname(require.resolve('dynalite/package.json')), 'db/stream.js'))) return;
  throw new CannotStart(
    'the embedded engine needs the dynalite patches recordgate ships: add "postinstall": "patch-package --patch-dir node_modules/recordgate/patches" to your package.json scripts, install patch-package, and run npm install; or set DYNAMODB_ENDPOINT to a DynamoDB Local',
  );
}

try {
  const { models, port, reaction } = readArguments(process.argv.slice(2));
  checkEnginePatched();
  if (port !== undefined) process.env.PORT = port;
  serveInThisProcess({ models, reaction });
} catch (error) {
  if (error instanceof UsageError) console.error(`recordgate: ${error.message}\n${USAGE}`);
  else if (error instanceof TeamModelsInvalid || error instanceof CannotStart) console.error(`recordgate cannot start: ${error.message}`);
  else if (error instanceof InvalidModelDefinition) console.error(`recordgate cannot start: ${error.message}; fix the model's definition`);
  else throw error;
  process.exit(1);
}
// After the catalog is chosen: the server's modules load the team's catalog in place of the shipped one.
require('./serve');
