import { BUILT_IN_LOADERS } from '../shared/models/built-in';
import { catalogOf } from '../shared/models/catalog-of';
import { servedInThisProcess } from './in-process';

// shared/models/catalog.ts in a process that serves a team's models (./in-process.ts): its models are loaded already.
const { builtIn, team } = servedInThisProcess();

export const { MODEL_NAMES, findModel } = catalogOf({
  ...(builtIn ? BUILT_IN_LOADERS : {}),
  ...Object.fromEntries(team.map(({ model }) => [model.name, async () => model])),
});
