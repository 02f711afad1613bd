import * as path from 'node:path';
import { type ModelsChoice, type ServedModels, servedModels } from './served-models';

let chosen: { choice: ModelsChoice; served: ServedModels } | undefined;

/** The models this process serves, as serveInThisProcess was given them. */
export function servedInThisProcess(): ServedModels {
  if (!chosen) throw new Error('serveInThisProcess was not called before the catalog loaded');
  return chosen.served;
}

/**
 * The choice this process serves (its models path absolute), for a process it starts that must
 * serve the same (the local feed's, scripts/local/feed-process.ts); undefined in the forked layout.
 */
export const choiceInThisProcess = (): ModelsChoice | undefined => chosen?.choice;

/**
 * Serves these models in this Node process (`recordgate dev`): from here on, every require of
 * the shipped catalog or every-model loads this folder's stand-ins, which serve the chosen
 * models, as a bundle built with them does (./bundle-catalog.ts). Call it before anything loads
 * the catalog: a module already loaded keeps the catalog it loaded.
 */
export function serveInThisProcess(choice: ModelsChoice): void {
  const absolute = { ...choice, ...(choice.models === undefined ? {} : { models: path.resolve(choice.models) }) };
  chosen = { choice: absolute, served: servedModels(absolute) };
  const models = path.resolve(__dirname, '../shared/models');
  const standIns = new Map([
    [path.join(models, 'catalog.ts'), path.join(__dirname, 'process-catalog.ts')],
    [path.join(models, 'every-model.ts'), path.join(__dirname, 'process-every-model.ts')],
  ]);
  const Module = require('node:module') as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function served(this: unknown, request: string, ...rest: unknown[]) {
    const resolved = resolveFilename.call(this, request, ...rest);
    return standIns.get(resolved) ?? resolved;
  };
}
