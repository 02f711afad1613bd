import { findModel, MODEL_NAMES } from './catalog';
import type { Model } from './define';

/** Every model the service serves, in the order the models endpoint lists them, all loaded. */
export const MODELS: ReadonlyArray<Model> = MODEL_NAMES.map((name) => findModel(name)!);

export { findModel };
