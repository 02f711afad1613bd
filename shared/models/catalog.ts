import { ONEBOT_LOADERS } from './built-in-onebot';
import { REACTION_LOADERS } from './built-in-reaction';
import { catalogOf } from './catalog-of';

/**
 * Every model the service serves, by name, in the order the models endpoint lists them, each
 * loaded on its first use (./built-in-reaction.ts, ./built-in-onebot.ts). What needs every model at once, synchronously (the
 * OpenAPI document, the CDK app), takes them from ./every-model. A team that adopts recordgate
 * without forking it gets this module replaced by its own models' catalog (catalog/).
 */
export const { MODEL_NAMES, findModel } = catalogOf({ ...REACTION_LOADERS, ...ONEBOT_LOADERS });
