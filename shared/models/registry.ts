import type { Model } from './define';
import { reaction } from './reaction';

/** Every model the service serves, in the order the models endpoint lists them. */
export const MODELS: ReadonlyArray<Model> = [reaction];

const byName = new Map(MODELS.map((m) => [m.name, m]));

export function findModel(name: string): Model | undefined {
  return byName.get(name);
}
