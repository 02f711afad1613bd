import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import type { ServedModels } from './served-models';

const MODELS_DIR = path.resolve(__dirname, '../shared/models');
/** The two modules that name the served models (shared/models/catalog.ts, every-model.ts), by the path esbuild resolves them to. */
const REPLACED = { catalog: path.join(MODELS_DIR, 'catalog.ts'), everyModel: path.join(MODELS_DIR, 'every-model.ts') };
const NAMESPACE = 'recordgate-served-models';

const literal = (text: string) => JSON.stringify(text);

/**
 * The source of a catalog and an every-model for these models, with the shipped modules'
 * exports: each team model loaded on first use from its module's chunk, the built-in ones from
 * theirs (shared/models/built-in-onebot.ts, built-in-reaction.ts; synchronously: built-in-onebot-now.ts, built-in-reaction-now.ts); reaction is not bundled at all
 * unless served.
 */
export function servedModelsSource(served: ServedModels): { catalog: string; everyModel: string } {
  const builtIn = [
    ...(served.reaction ? [{ file: 'built-in-reaction.ts', now: 'built-in-reaction-now.ts', loaders: 'REACTION_LOADERS', models: 'reactionModels' }] : []),
    { file: 'built-in-onebot.ts', now: 'built-in-onebot-now.ts', loaders: 'ONEBOT_LOADERS', models: 'onebotModels' },
  ];
  const from = (file: string) => literal(path.join(MODELS_DIR, file));
  const teamLoaders = served.team.map(
    ({ model, file, exportName }) => `${literal(model.name)}: async () => (await import(${literal(file)}))[${literal(exportName)}]`,
  );
  const required = served.team.map(({ file, exportName }) => `require(${literal(file)})[${literal(exportName)}]`);
  return {
    catalog: [
      `import { catalogOf } from ${from('catalog-of.ts')};`,
      ...builtIn.map((b) => `import { ${b.loaders} } from ${from(b.file)};`),
      `export const { MODEL_NAMES, findModel } = catalogOf({ ${[...builtIn.map((b) => `...${b.loaders}`), ...teamLoaders].join(', ')} });`,
    ].join('\n'),
    everyModel: [
      ...builtIn.map((b) => `import { ${b.models} } from ${from(b.now)};`),
      `export const allModels = () => [${[...builtIn.map((b) => `...${b.models}()`), ...required].join(', ')}];`,
    ].join('\n'),
  };
}

export type ServedModelsSource = ReturnType<typeof servedModelsSource>;

/**
 * Bundles a function with the served models in place of the shipped catalog: every import of
 * shared/models/catalog.ts or every-model.ts resolves to their source (servedModelsSource). Only
 * recordgate's own modules are replaced, whoever imports them.
 */
export function servedModelsPlugin(source: ServedModelsSource): Plugin {
  return {
    name: 'served-models',
    setup(build) {
      build.onResolve({ filter: /\/(catalog|every-model)$/ }, async ({ path: specifier, importer, resolveDir, kind, pluginData }) => {
        if (pluginData === NAMESPACE) return undefined;
        const resolved = await build.resolve(specifier, { importer, resolveDir, kind, pluginData: NAMESPACE });
        const which = (Object.keys(REPLACED) as Array<keyof typeof REPLACED>).find((key) => REPLACED[key] === resolved.path);
        return which ? { path: which, namespace: NAMESPACE } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, ({ path: which }) => ({
        contents: source[which as keyof typeof source],
        loader: 'js',
        resolveDir: MODELS_DIR,
      }));
    },
  };
}
