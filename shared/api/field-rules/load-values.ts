import { loadOnce } from '../../load-once';
import { hasFieldRules } from '../../models/has-rules';

// A chunk of its own, loaded by the first update of a model with field rules (./load-reads.ts says why one loader a module).
const values = loadOnce(() => import('./values'));

/** ./values.ts checkValueNames, on a model with field rules. */
export const checkValueNames = async (...args: Parameters<typeof import('./values').checkValueNames>): Promise<void> => {
  if (hasFieldRules(args[0])) (await values()).checkValueNames(...args);
};
