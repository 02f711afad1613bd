import type { Model } from './model';

/**
 * The models recordgate ships, each loaded on its first use from a chunk of its own in a bundle:
 * a function answering a reaction request neither loads nor builds the OneBot models (nor the
 * regex engine and settings they bring) at its cold start. The shipped catalog serves them; a
 * team's catalog serves them before its own, unless the team leaves them out (docs/deploying.md).
 */
export const BUILT_IN_LOADERS: Readonly<Record<string, () => Promise<Model>>> = {
  reaction: async () => (await import('./reaction')).reaction,
  onebot_event: async () => (await import('./onebot')).onebotEvent,
  onebot_bot: async () => (await import('./onebot')).onebotBot,
  onebot_rule: async () => (await import('./onebot')).onebotRule,
};

/**
 * The same models, in the same order, loaded synchronously by the call (./every-model.ts says
 * why by the call and not by the import).
 */
export function builtInModels(): Model[] {
  const { onebotEvent, onebotBot, onebotRule } = require('./onebot') as typeof import('./onebot');
  return [(require('./reaction') as typeof import('./reaction')).reaction, onebotEvent, onebotBot, onebotRule];
}
