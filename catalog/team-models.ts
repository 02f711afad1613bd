import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Model } from '../shared/models/model';

/** One of a team's models, and where it is exported from: what a team's catalog imports. */
export interface TeamModel {
  model: Model;
  /** The module's absolute path. */
  file: string;
  /** The name the module exports it under. */
  exportName: string;
}

/** A path of models that cannot serve: said in one line, with its fix. */
export class TeamModelsInvalid extends Error {}

/** A module recordgate reads models from: TypeScript or JavaScript, never a declaration or a test. */
const MODULE = /^(?!.*\.d\.[cm]?ts$)(?!.*\.test\.)[^.].*\.[cm]?[jt]s$/;

/** What defineModel returns (shared/models/define.ts), told from anything else a module exports. */
const isModel = (value: unknown): value is Model => {
  const model = value as Partial<Model> | null;
  return typeof model === 'object' && model !== null && typeof model.name === 'string' && Array.isArray(model.indexed) && model.schema?._zod !== undefined;
};

/** The modules of a models path: the file itself, or each module at the top of the folder, by name. */
function modulesOf(modelsPath: string): string[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(modelsPath).isDirectory();
  } catch {
    throw new TeamModelsInvalid(`models path ${modelsPath} does not exist; give a module of defineModel exports, or a folder of them`);
  }
  if (!isFolder) return [modelsPath];
  return readdirSync(modelsPath)
    .filter((name) => MODULE.test(name))
    .sort()
    .map((name) => path.join(modelsPath, name));
}

/**
 * A team's models, from a module of defineModel exports or a folder of such modules, each
 * loaded once here (a definition the service cannot serve throws as it is declared): module by
 * module in file-name order, each module's by export name. Runs in a process that loads TypeScript (tsx: the
 * CDK app, `recordgate dev`).
 */
export function loadTeamModels(modelsPath: string): TeamModel[] {
  const found: TeamModel[] = [];
  for (const file of modulesOf(path.resolve(modelsPath))) {
    const exports = require(file) as Record<string, unknown>;
    // By export name: the order a transpiler writes a module's exports in is its own.
    for (const [exportName, value] of Object.entries(exports).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!isModel(value)) continue;
      const twin = found.find((t) => t.model.name === value.name);
      if (twin && twin.model !== value)
        throw new TeamModelsInvalid(`two models are named ${value.name}: ${twin.exportName} of ${twin.file} and ${exportName} of ${file}; rename one`);
      if (!twin) found.push({ model: value, file, exportName });
    }
  }
  if (found.length === 0) throw new TeamModelsInvalid(`models path ${modelsPath} exports no model; export each defineModel(...) by name`);
  return found;
}
