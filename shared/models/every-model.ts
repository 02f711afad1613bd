import type { Model } from './define';
import { onebotBot, onebotEvent, onebotRule } from './onebot';
import { reaction } from './reaction';

/** The catalog's models by name and in its order, imported at once: test/unit/models/catalog.test.ts holds the two lists together. */
export const EVERY_MODEL: Readonly<Record<string, Model>> = {
  reaction,
  onebot_event: onebotEvent,
  onebot_bot: onebotBot,
  onebot_rule: onebotRule,
};

/**
 * Every model, in the catalog's order, loaded synchronously: for what is built from all of them
 * before any request (the OpenAPI document, the CDK app's index definitions, the local start),
 * never for a record function, whose model comes from the catalog's own chunk.
 */
export const allModels = (): Model[] => Object.values(EVERY_MODEL);
