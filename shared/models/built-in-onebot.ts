import type { Model } from './model';

/*
 * The OneBot models, which the OneBot receivers write: every catalog serves them (catalog/), each
 * loaded on its first use from a chunk of its own in a bundle, so that a function answering a
 * record request neither loads nor builds them (nor the regex engine and settings they bring) at
 * its cold start.
 */

export const ONEBOT_LOADERS: Readonly<Record<string, () => Promise<Model>>> = {
  onebot_event: async () => (await import('./onebot')).onebotEvent,
  onebot_bot: async () => (await import('./onebot')).onebotBot,
  onebot_rule: async () => (await import('./onebot')).onebotRule,
};
