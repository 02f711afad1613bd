/**
 * `recordgate dev [--models <path>] [--port <n>] [--reaction]`: `npm start` for a project that
 * has recordgate as a dependency (docs/deploying.md, "Adopting recordgate"). The same server,
 * engine and settings (DATA_DIR, API_TOKENS, SUBSCRIPTIONS... as docs/local-server.md lists them),
 * serving the team's models from a module of defineModel exports or a folder of them, beside the
 * OneBot models (and reaction with --reaction): the models a RecordGate construct given the same
 * choice deploys.
 */
import { InvalidModelDefinition } from '../shared/models/define';
import { serveInThisProcess } from '../catalog/in-process';
import { servedModels, TeamModelsInvalid } from '../catalog/served-models';

const USAGE = 'usage: recordgate dev [--models <module or folder>] [--port <n>] [--reaction]';

/** The command line, checked: a mistake is told in one line with the usage, before anything starts. */
function readArguments(args: ReadonlyArray<string>): { models?: string; port?: string; reaction?: boolean } {
  const [command, ...rest] = args;
  if (command !== 'dev') throw new TeamModelsInvalid(command === undefined ? 'no command given' : `no command ${command}`);
  const read: { models?: string; port?: string; reaction?: boolean } = {};
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    if (flag === '--reaction') read.reaction = true;
    else if ((flag === '--models' || flag === '--port') && rest[i + 1] !== undefined) read[flag === '--models' ? 'models' : 'port'] = rest[++i];
    else throw new TeamModelsInvalid(`${flag} is not an option here, or lacks its value`);
  }
  return read;
}

try {
  const { models, port, reaction } = readArguments(process.argv.slice(2));
  if (port !== undefined) process.env.PORT = port;
  serveInThisProcess(servedModels({ models, reaction }));
} catch (error) {
  if (error instanceof TeamModelsInvalid) console.error(`recordgate: ${error.message}\n${USAGE}`);
  else if (error instanceof InvalidModelDefinition) console.error(`recordgate cannot start: ${error.message}; fix the model's definition`);
  else throw error;
  process.exit(1);
}
// After the catalog is chosen: the server's modules load the team's catalog in place of the shipped one.
require('./serve');
