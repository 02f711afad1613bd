import type { Model } from '../../shared/models/define';

/**
 * The model catalog (shared/models/catalog.ts) serving a test file's models besides its own, for
 * `jest.mock('<path>/shared/models/catalog', () => jest.requireActual('<path>/test/support/catalog-with').catalogWith(...))`.
 * The factory runs on the catalog's first import, before the file's models are made, so they are
 * read when a model is looked up.
 */
export function catalogWith(names: ReadonlyArray<string>, added: () => ReadonlyArray<Model>) {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, ...names],
    findModel: async (name: string) => added().find((m) => m.name === name) ?? actual.findModel(name),
  };
}
