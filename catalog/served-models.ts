import { onebotModels } from '../shared/models/built-in-onebot-now';
import { reactionModels } from '../shared/models/built-in-reaction-now';
import type { Model } from '../shared/models/model';
import { loadTeamModels, type TeamModel, TeamModelsInvalid } from './team-models';

export { TeamModelsInvalid };

/**
 * Which models a deployment or a local server serves. The OneBot models always: the OneBot
 * receivers write them. Then reaction, the forked layout's sample model, and the team's own.
 */
export interface ModelsChoice {
  /** A module of the team's defineModel exports, or a folder of such modules; unset: recordgate's models alone (the forked layout). */
  models?: string;
  /** Whether reaction is served too. Default: only when no models path is given. */
  reaction?: boolean;
}

/** The models served, loaded, in the order the models endpoint lists them: reaction if served, the OneBot models, then the team's. */
export interface ServedModels {
  reaction: boolean;
  team: ReadonlyArray<TeamModel>;
  all: ReadonlyArray<Model>;
}

/** The choice loaded and checked: a team model may not take a built-in model's name. */
export function servedModels(choice: ModelsChoice = {}): ServedModels {
  const reaction = choice.reaction ?? choice.models === undefined;
  const team = choice.models === undefined ? [] : loadTeamModels(choice.models);
  const builtIn = [...(reaction ? reactionModels() : []), ...onebotModels()];
  for (const { model, file } of team)
    if (builtIn.some((m) => m.name === model.name))
      throw new TeamModelsInvalid(`model ${model.name} of ${file} takes the name of a model recordgate serves; rename it`);
  return { reaction, team, all: [...builtIn, ...team.map((t) => t.model)] };
}

/** Whether the shipped catalog serves exactly these models, so that the code needs no other catalog. */
export const isShipped = (served: ServedModels): boolean => served.reaction && served.team.length === 0;
