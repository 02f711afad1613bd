import { ONEBOT_LOADERS } from '../shared/models/built-in-onebot';
import { REACTION_LOADERS } from '../shared/models/built-in-reaction';
import { catalogOf } from '../shared/models/catalog-of';
import { servedInThisProcess } from './in-process';

// shared/models/catalog.ts in a process that serves a team's models (./in-process.ts): its models are loaded already.
const { reaction, team } = servedInThisProcess();

export const { MODEL_NAMES, findModel } = catalogOf({
  ...(reaction ? REACTION_LOADERS : {}),
  ...ONEBOT_LOADERS,
  ...Object.fromEntries(team.map(({ model }) => [model.name, async () => model])),
});
