import type { Model } from '../../shared/models/define';
import { accountModel, leaseModel, leaseTallyModel, stockModel } from './models';

type Catalog = Pick<typeof import('../../shared/models/catalog'), 'MODEL_NAMES' | 'findModel'>;
type EveryModel = typeof import('../../shared/models/every-model');

/** The models the suites add to the shipped ones, as a team adds its own: a bounded stock, an account whose balance may not go below 0, a lease that expires, leases that expire counted per holder. */
const TEST_MODELS = {
  op_stock: () => stockModel('op_stock'),
  account: () => accountModel('account'),
  lease: () => leaseModel('lease'),
  lease_tally: () => leaseTallyModel('lease_tally'),
} as const satisfies Record<string, () => Model>;
type TestModelName = keyof typeof TEST_MODELS;
const isTestModel = (name: string): name is TestModelName => Object.hasOwn(TEST_MODELS, name);

const built = new Map<string, Model>();

/** A test model, built once: the definition the service serves, for a suite's own reads of the table. */
export function testModel(name: TestModelName): Model {
  if (!built.has(name)) built.set(name, TEST_MODELS[name]());
  return built.get(name)!;
}

/**
 * The shipped catalog with the test models after its own: what the local server serves through
 * `jest.mock` of shared/models/catalog.ts, and what the artifact project's bundles of the test
 * models are built with (test/support/artifact/catalog.ts), so both serve the same models.
 */
export function withTestModels(shipped: Catalog): Catalog {
  return {
    MODEL_NAMES: [...shipped.MODEL_NAMES, ...Object.keys(TEST_MODELS)],
    findModel: async (name) => (isTestModel(name) ? testModel(name) : shipped.findModel(name)),
  };
}

/** shared/models/every-model.ts with the test models after the shipped ones, for `jest.mock` of it. */
export function everyModelWithTestModels(shipped: EveryModel): EveryModel {
  const names = Object.keys(TEST_MODELS) as TestModelName[];
  return { allModels: () => [...shipped.allModels(), ...names.map((name) => testModel(name))] };
}
