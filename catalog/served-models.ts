import { builtInModels } from '../shared/models/built-in';
import type { Model } from '../shared/models/model';
import { loadTeamModels, type TeamModel, TeamModelsInvalid } from './team-models';

/** Which models a deployment or a local server serves: recordgate's own, a team's, or both. */
export interface ModelsChoice {
  /** A module of the team's defineModel exports, or a folder of such modules; unset: recordgate's models alone (the forked layout). */
  models?: string;
  /** Whether recordgate's own models (reaction, the OneBot models) are served beside the team's. Default true. */
  builtInModels?: boolean;
}

/** The models served, loaded: the built-in ones first, then the team's in their own order. */
export interface ServedModels {
  builtIn: boolean;
  team: ReadonlyArray<TeamModel>;
  all: ReadonlyArray<Model>;
}

/** The choice loaded and checked: a team model may not take a built-in model's name, and something must be served. */
export function servedModels(choice: ModelsChoice = {}): ServedModels {
  const builtIn = choice.builtInModels ?? true;
  const team = choice.models === undefined ? [] : loadTeamModels(choice.models);
  const shipped = builtIn ? builtInModels() : [];
  if (shipped.length + team.length === 0) throw new TeamModelsInvalid('builtInModels is false and no models path is given: there is no model to serve');
  for (const { model, file } of team)
    if (shipped.some((m) => m.name === model.name))
      throw new TeamModelsInvalid(`model ${model.name} of ${file} takes the name of a built-in model; rename it, or set builtInModels: false`);
  return { builtIn, team, all: [...shipped, ...team.map((t) => t.model)] };
}

/** Whether the shipped catalog serves exactly these models, so that the code needs no other catalog. */
export const isShipped = (served: ServedModels): boolean => served.builtIn && served.team.length === 0;
