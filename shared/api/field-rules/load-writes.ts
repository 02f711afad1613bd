import { loadOnce } from '../../load-once';
import { hasFieldRules } from '../../models/has-rules';

// A chunk of its own, loaded by the first write to a model with field rules (./load-reads.ts says why one loader a module).
const writes = loadOnce(() => import('./writes'));

/** ./writes.ts checkDataNames, on a model with field rules. */
export const checkDataNames = async (...args: Parameters<typeof import('./writes').checkDataNames>): Promise<void> => {
  if (hasFieldRules(args[0])) await (await writes()).checkDataNames(...args);
};
