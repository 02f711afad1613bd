import type { Model } from './model';
import { findModel, MODEL_NAMES } from './catalog';

/**
 * Every model of the catalog, each from its own chunk, in the catalog's order: for what lists or
 * builds every model at a request (the models endpoint, an unknown_model answer, the index build,
 * models:check). Apart from the catalog, so that a test's catalog (jest.mock) serves it too.
 */
export const loadAllModels = async (): Promise<Model[]> => Promise.all(MODEL_NAMES.map(async (name) => (await findModel(name))!));
