import type { Model } from './model';

/**
 * The OneBot models loaded synchronously by the call (./every-model.ts says why by the call and
 * not by the import), apart from their loaders (./built-in-onebot.ts): a `require` puts the module
 * it names into its importer's chunk, so beside the loaders, which the catalog imports, it made
 * every record function load and declare them at its cold start.
 */
export function onebotModels(): Model[] {
  const { onebotEvent, onebotBot, onebotRule } = require('./onebot') as typeof import('./onebot');
  return [onebotEvent, onebotBot, onebotRule];
}
