import type { Model } from './model';

/** A catalog: the models a service serves, by name, each loaded on its first use. */
export interface Catalog {
  /** In the order the models endpoint lists them. */
  readonly MODEL_NAMES: ReadonlyArray<string>;
  findModel(name: string): Promise<Model | undefined>;
}

/**
 * The catalog of these loaders: the shipped one (./catalog.ts), or one built for a team's models
 * (catalog/, which a bundle or `recordgate dev` puts in the shipped one's place). Each loader is
 * called once, and what it loads must be the model it is listed under.
 */
export function catalogOf(loaders: Readonly<Record<string, () => Promise<Model>>>): Catalog {
  const loaded = new Map<string, Promise<Model>>();
  const load = async (name: string): Promise<Model> => {
    const model = await loaders[name]();
    if (model.name !== name) throw new Error(`the catalog lists ${name}, but its module defines ${model.name}`);
    return model;
  };
  return {
    MODEL_NAMES: Object.keys(loaders),
    findModel(name) {
      if (!Object.hasOwn(loaders, name)) return Promise.resolve(undefined);
      let model = loaded.get(name);
      if (!model) {
        model = load(name);
        loaded.set(name, model);
      }
      return model;
    },
  };
}
