import type { Model } from './model';

/*
 * The models recordgate ships, each loaded on its first use from a chunk of its own in a bundle:
 * a function answering a reaction request neither loads nor builds the OneBot models (nor the
 * regex engine and settings they bring) at its cold start. The shipped catalog serves them all.
 * A team's catalog (catalog/) serves the OneBot models, which the OneBot receivers write, and
 * reaction, the forked layout's sample, only when asked; esbuild leaves out what it does not import.
 */

export const REACTION_LOADERS: Readonly<Record<string, () => Promise<Model>>> = {
  reaction: async () => (await import('./reaction')).reaction,
};

export const ONEBOT_LOADERS: Readonly<Record<string, () => Promise<Model>>> = {
  onebot_event: async () => (await import('./onebot')).onebotEvent,
  onebot_bot: async () => (await import('./onebot')).onebotBot,
  onebot_rule: async () => (await import('./onebot')).onebotRule,
};

/** The same models, loaded synchronously by the call (./every-model.ts says why by the call and not by the import). */
export const reactionModels = (): Model[] => [(require('./reaction') as typeof import('./reaction')).reaction];

export function onebotModels(): Model[] {
  const { onebotEvent, onebotBot, onebotRule } = require('./onebot') as typeof import('./onebot');
  return [onebotEvent, onebotBot, onebotRule];
}
