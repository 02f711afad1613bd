import type { Model } from './model';

/**
 * Every model the service serves, by name, in the order the models endpoint lists them, each
 * loaded on its first use, from a chunk of its own in a bundle: a function answering a reaction
 * request neither loads nor builds the OneBot models (nor the regex engine and settings they
 * bring) at its cold start. What needs every model at once, synchronously (the OpenAPI document,
 * the CDK app), takes them from ./every-model.
 */
const LOADERS: Readonly<Record<string, () => Promise<Model>>> = {
  reaction: async () => (await import('./reaction')).reaction,
  onebot_event: async () => (await import('./onebot')).onebotEvent,
  onebot_bot: async () => (await import('./onebot')).onebotBot,
  onebot_rule: async () => (await import('./onebot')).onebotRule,
};

export const MODEL_NAMES: ReadonlyArray<string> = Object.keys(LOADERS);

const loaded = new Map<string, Promise<Model>>();

async function load(name: string): Promise<Model> {
  const model = await LOADERS[name]();
  if (model.name !== name) throw new Error(`the catalog lists ${name}, but its module defines ${model.name}`);
  return model;
}

export function findModel(name: string): Promise<Model | undefined> {
  if (!Object.hasOwn(LOADERS, name)) return Promise.resolve(undefined);
  let model = loaded.get(name);
  if (!model) {
    model = load(name);
    loaded.set(name, model);
  }
  return model;
}
