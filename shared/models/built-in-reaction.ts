import type { Model } from './model';

/*
 * reaction, the forked layout's sample model, in a module of its own (as ./built-in-onebot.ts
 * has the OneBot models): a team's catalog serves it only when asked (catalog/), and a bundle that
 * does not import this module does not hold it.
 */

/** Loaded on its first use, from a chunk of its own in a bundle. */
export const REACTION_LOADERS: Readonly<Record<string, () => Promise<Model>>> = {
  reaction: async () => (await import('./reaction')).reaction,
};
