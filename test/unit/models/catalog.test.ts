import { findModel, MODEL_NAMES } from '../../../shared/models/catalog';
import { allModels } from '../../../shared/models/every-model';

// Two lists name the models: the catalog's lazy loaders and every-model's imports. Each must
// name the same models in the same order, and both must hand out the same definitions.
test('the catalog and every-model list the same models, in one order, as the same objects', async () => {
  expect(allModels().map((m) => m.name)).toEqual(MODEL_NAMES);
  for (const model of allModels()) expect(await findModel(model.name)).toBe(model);
});

test('a name the catalog does not list finds no model, inherited names included', async () => {
  for (const name of ['nope', 'constructor', '__proto__', 'toString']) expect(await findModel(name)).toBeUndefined();
});
