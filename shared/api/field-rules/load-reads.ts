import { loadOnce } from '../../load-once';

// A chunk of its own (shared/load-once.ts), loaded by the first caller a field is hidden from. One
// loader a module, so that a function bundles only the chunks its operation may load: a chunk
// in the bundle keeps the code it shares with the rest at the cold start (the filter parser's
// compiler, for the create function).
const reads = loadOnce(() => import('./reads'));

/** ./reads.ts refuseHiddenNames, for a caller some field is hidden from. */
export const refuseHiddenNames = async (...args: Parameters<typeof import('./reads').refuseHiddenNames>): Promise<void> => {
  if (args[1].size > 0) (await reads()).refuseHiddenNames(...args);
};
