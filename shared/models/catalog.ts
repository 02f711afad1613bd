import type { Model } from './define';

/**
 * Every model the service serves, by name, in the order the models endpoint lists them, each
 * loaded on its first use: a function answering a reaction request does not build the OneBot
 * models (nor load the regex engine and settings they bring) at its cold start; `allModels()`
 * loads them all, for what needs every model.
 */
const LOADERS: Readonly<Record<string, () => Model>> = {
  reaction: () => (require('./reaction') as typeof import('./reaction')).reaction,
  onebot_event: () => (require('./onebot') as typeof import('./onebot')).onebotEvent,
  onebot_bot: () => (require('./onebot') as typeof import('./onebot')).onebotBot,
  onebot_rule: () => (require('./onebot') as typeof import('./onebot')).onebotRule,
};

export const MODEL_NAMES: ReadonlyArray<string> = Object.keys(LOADERS);

const loaded = new Map<string, Model>();

export function findModel(name: string): Model | undefined {
  if (!Object.hasOwn(LOADERS, name)) return undefined;
  let model = loaded.get(name);
  if (!model) {
    model = LOADERS[name]();
    if (model.name !== name) throw new Error(`the catalog lists ${name}, but its module defines ${model.name}`);
    loaded.set(name, model);
  }
  return model;
}

/**
 * Every model, in the order the models endpoint lists them, all loaded: for what needs each one
 * (the OpenAPI document, the index build, the local server), never for a request's own model.
 */
export const allModels = (): Model[] => MODEL_NAMES.map((name) => findModel(name)!);
