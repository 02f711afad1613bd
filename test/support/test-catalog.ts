import type { Model } from '../../shared/models/define';

type Catalog = Pick<typeof import('../../shared/models/catalog'), 'MODEL_NAMES' | 'findModel' | 'allModels'>;

/**
 * The models the suites add to the shipped ones, as a team adds its own: a bounded stock and an
 * account whose balance may not go below 0. Each loaded on first use, as the shipped catalog's are.
 */
const TEST_MODELS: Readonly<Record<string, () => Model>> = {
  op_stock: () => (require('./models') as typeof import('./models')).stockModel('op_stock'),
  account: () => (require('./models') as typeof import('./models')).accountModel('account'),
};

/**
 * The shipped catalog with the test models after its own: what the local server serves through
 * `jest.mock` of shared/models/catalog.ts, and what the artifact project's bundles of the test
 * models are built with (test/support/artifact/catalog.ts), so both serve the same models.
 */
export function withTestModels(shipped: Catalog): Catalog {
  const loaded = new Map<string, Model>();
  const MODEL_NAMES = [...shipped.MODEL_NAMES, ...Object.keys(TEST_MODELS)];
  const findModel = (name: string): Model | undefined => {
    if (!Object.hasOwn(TEST_MODELS, name)) return shipped.findModel(name);
    if (!loaded.has(name)) loaded.set(name, TEST_MODELS[name]());
    return loaded.get(name);
  };
  return { MODEL_NAMES, findModel, allModels: () => MODEL_NAMES.map((name) => findModel(name)!) };
}
