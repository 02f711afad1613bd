import type { Model } from './define';
import { onebotBot, onebotEvent, onebotRule } from './onebot';
import { reaction } from './reaction';

/** Every model the service serves, in the order the models endpoint lists them. */
export const MODELS: ReadonlyArray<Model> = [reaction, onebotEvent, onebotBot, onebotRule];

const byName = new Map(MODELS.map((m) => [m.name, m]));

export function findModel(name: string): Model | undefined {
  return byName.get(name);
}
