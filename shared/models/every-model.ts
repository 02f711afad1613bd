import { onebotModels } from './built-in-onebot-now';
import { reactionModels } from './built-in-reaction-now';
import type { Model } from './model';

/**
 * Every model, in the catalog's order (test/unit/models/catalog.test.ts holds the two lists
 * together), loaded synchronously on the first call: for what is built from all of them before
 * any request (the OpenAPI document, the CDK app's index definitions, the local start), never for
 * a record function, whose model comes from the catalog's own chunk. Loaded by the call, not by
 * importing this module, so that a definition the service cannot serve throws where its caller
 * can say so (the local start's one line), not while modules load.
 */
export const allModels = (): Model[] => [...reactionModels(), ...onebotModels()];
