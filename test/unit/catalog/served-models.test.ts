import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { servedModelsSource } from '../../../catalog/bundle-catalog';
import { isShipped, servedModels } from '../../../catalog/served-models';
import { allModels } from '../../../shared/models/every-model';

// The models a deployment or `recordgate dev` serves, from a team's path (catalog/served-models.ts),
// and the catalog a bundle is built with for them (catalog/bundle-catalog.ts).
const DEFINE = path.resolve(__dirname, '../../../shared/models/index.ts');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'team-models-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A module of the team's: each name one exported model (its export name the model's, unless given). */
function teamModule(file: string, models: Array<string | [exportName: string, model: string]>): string {
  const at = path.join(dir, file);
  mkdirSync(path.dirname(at), { recursive: true });
  const exports = models.map((m) => {
    const [exportName, name] = typeof m === 'string' ? [m, m] : m;
    return `export const ${exportName} = defineModel({ name: '${name}', schema: zm.object({ n: zm.number() }) });`;
  });
  writeFileSync(at, [`import { defineModel, zm } from ${JSON.stringify(DEFINE)};`, 'export const notAModel = 1;', ...exports].join('\n'));
  return at;
}
const names = (models: ReadonlyArray<{ name: string }>) => models.map((m) => m.name);

test('without a models path: the shipped catalog, reaction and the OneBot models', () => {
  const served = servedModels();
  expect(names(served.all)).toEqual(names(allModels()));
  expect(isShipped(served)).toBe(true);
});

test("a folder: the OneBot models, then the modules' models by file name and export name, declarations and tests left out", () => {
  const b = teamModule('b.ts', ['tag', ['noteAlias', 'note']]);
  teamModule('a.ts', ['author']);
  writeFileSync(path.join(dir, 'c.d.ts'), 'export declare const x: number;');
  writeFileSync(path.join(dir, 'c.test.ts'), 'throw new Error("a test is not a model module");');
  const served = servedModels({ models: dir });
  expect(names(served.all)).toEqual(['onebot_event', 'onebot_bot', 'onebot_rule', 'author', 'note', 'tag']);
  expect(served.team.find((t) => t.model.name === 'note')).toMatchObject({ file: b, exportName: 'noteAlias' });
  expect(isShipped(served)).toBe(false);
});

test('a module, and reaction beside it when asked', () => {
  const served = servedModels({ models: teamModule('models.ts', ['note']), reaction: true });
  expect(names(served.all)).toEqual(['reaction', 'onebot_event', 'onebot_bot', 'onebot_rule', 'note']);
});

test('a path that cannot serve is refused in one line that names it', () => {
  expect(() => servedModels({ models: path.join(dir, 'missing') })).toThrow(/does not exist/);
  writeFileSync(path.join(dir, 'empty.ts'), 'export const x = 1;');
  expect(() => servedModels({ models: path.join(dir, 'empty.ts') })).toThrow(/exports no model/);
  teamModule('twins/a.ts', ['note']);
  teamModule('twins/b.ts', ['note']);
  expect(() => servedModels({ models: path.join(dir, 'twins') })).toThrow(/two models are named note/);
  expect(() => servedModels({ models: teamModule('bot.ts', [['bot', 'onebot_bot']]) })).toThrow(/takes the name of a model recordgate serves/);
});

test('a team may name a model reaction while the sample is not served, and not beside it', () => {
  const file = teamModule('reaction.ts', ['reaction']);
  expect(names(servedModels({ models: file }).all)).toContain('reaction');
  expect(() => servedModels({ models: file, reaction: true })).toThrow(/takes the name/);
});

test("a bundle's catalog imports reaction's module only when reaction is served, and each team model from its own module", () => {
  const file = teamModule('models.ts', ['note']);
  const without = servedModelsSource(servedModels({ models: file }));
  expect(without.catalog).not.toContain('built-in-reaction');
  expect(without.everyModel).not.toContain('built-in-reaction');
  expect(without.catalog).toContain(`"note": async () => (await import(${JSON.stringify(file)}))["note"]`);
  const withReaction = servedModelsSource(servedModels({ models: file, reaction: true }));
  expect(withReaction.catalog).toContain('...REACTION_LOADERS, ...ONEBOT_LOADERS');
});
