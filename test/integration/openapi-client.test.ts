import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { useApi } from '../support/api';

/**
 * A client generated from the served /openapi.json by openapi-typescript, called with
 * openapi-fetch, as a user of another language's generator would: its filtered calls compile (a
 * misspelt field or operator does not, on a model with no object field) and the service answers them. The program runs in a
 * directory of its own that sees this project's node_modules, as a user's project would.
 */
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const api = useApi();

// In the loopback open mode of the local server: no token needed.
delete process.env.API_TOKENS;

const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL });

// Typed by the document: a filter of the reaction model, recursive through $and/$or/$not.
const filters: components['schemas']['reaction_filter'] = {
  $and: [{ user_id: { $gte: 2, $lt: 100 } }, { $or: [{ content: '+1' }, { content: { $begins_with: 'he' } }] }],
  $not: { user_name: { $exists: false } },
};

const created = await client.POST('/api/db/reaction/create', {
  body: {
    data: [
      { user_id: 1, user_name: 'ann', content: '+1' },
      { user_id: 2, user_name: 'bob', content: '+1' },
      { user_id: 3, user_name: 'cy', content: 'heart' },
      { user_id: 4, content: 'heart' },
      { user_id: 5, user_name: 'di', content: 'eyes' },
    ],
    ids: ['g-1', 'g-2', 'g-3', 'g-4', 'g-5'],
  },
});
const list = await client.POST('/api/db/reaction/list', { body: { filters, order_by: '-user_id', fields: ['user_id', '_version'] } });
const items = list.data?.data.items ?? [];
// System fields are typed as what they are: _version a number, _created_at a string.
const versions: Array<number | undefined> = items.map((item) => item._version);
const count = await client.POST('/api/db/reaction/count', { body: { filters } });
const one = await client.POST('/api/db/reaction/get_one', { body: { filters: { $and: [filters, { content: 'heart' }] } } });
const created_at: string | undefined = one.data?.data._created_at;
const updated = await client.POST('/api/db/reaction/update', {
  body: { filters: { $or: [{ id: 'g-2' }, { user_id: { $in: [3] } }] }, values: { user_name: 'zed' } },
});
const deleted = await client.POST('/api/db/reaction/delete', { body: { filters: { content: 'eyes', user_id: { $not: { $lt: 5 } } } } });
const refused = await client.POST('/api/db/reaction/list', { body: { filters: { user_id: { $gt: 'a' } } } as never });

console.log(
  JSON.stringify({
    created: created.response.status,
    list: { status: list.response.status, ids: items.map((item) => item.id), versions, keys: items.map((item) => Object.keys(item).sort()) },
    count: { status: count.response.status, count: count.data?.data.count },
    one: { status: one.response.status, id: one.data?.data.id, created_at: typeof created_at },
    updated: { status: updated.response.status, updated: updated.data?.data.updated },
    deleted: { status: deleted.response.status, deleted: deleted.data?.data.deleted },
    refused: { status: refused.response.status, error: refused.error?.data.error },
  }),
);
`;

/**
 * Each line a call the document must refuse to type: a misspelt field (at the top, inside $and),
 * an operator the field's kind has not, an unsortable order. openapi-fetch infers its options
 * generically, and TypeScript checks a literal inferred that way for assignability only, without
 * excess-property checks, so a filter is typed where it is written, as a user would (the program
 * above does the same).
 */
const WRONG: Array<[string, string]> = [
  [`const filters: Filter = { user_idd: 1 }; await client.POST('/api/db/reaction/list', { body: { filters } });`, "'user_idd'"],
  [
    `const filters: Filter = { $or: [{ content: { $begins_with: 'x' } }, { user_id: { $begins_with: 'x' } }] }; await client.POST('/api/db/reaction/count', { body: { filters } });`,
    "'$begins_with'",
  ],
  [`await client.POST('/api/db/reaction/list', { body: { order_by: 'user_name' } });`, '"user_name"'],
  [`const filters: Filter = { $and: [{ nope: { $exists: true } }] }; await client.POST('/api/db/reaction/delete', { body: { filters } });`, "'nope'"],
  [`const filters: Filter = { _version: { $gt: '1' } }; await client.POST('/api/db/reaction/get_one', { body: { filters } });`, "'{ $gt: string; }'"],
];

let dir: string;
const TYPESCRIPT_5 = path.join(ROOT, 'node_modules/typescript/bin/tsc');
// openapi-typescript itself needs TypeScript 5 (its peerDependency: it builds its output with
// TypeScript's JavaScript API, which TypeScript 7's package does not have); what it writes
// compiles under 7 as well (docs/api-documentation.md).
const TYPESCRIPT_7 = path.join(ROOT, 'node_modules/typescript7/bin/tsc');
const tsc = (...files: string[]) => compile(TYPESCRIPT_5, ...files);
const compile = (compiler: string, ...files: string[]) =>
  run(
    process.execPath,
    [
      compiler,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      ...files,
    ],
    { cwd: dir },
  ).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'openapi-client-'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  // Generated from the document the running service serves, by the generator's own command.
  await run(process.execPath, [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), `${api.url}/openapi.json`, '-o', 'api.d.ts'], { cwd: dir });
  writeFileSync(path.join(dir, 'program.ts'), PROGRAM);
  WRONG.forEach(([line], i) => {
    const head = `import createClient from 'openapi-fetch';\nimport type { components, paths } from './api.js';\ntype Filter = components['schemas']['reaction_filter'];\nconst client = createClient<paths>({});\n`;
    writeFileSync(path.join(dir, `wrong-${i}.ts`), `${head}${line}\n`);
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the filtering program type-checks against the generated types, under TypeScript 5 and 7', async () => {
  expect(await tsc('program.ts')).toBe('');
  expect(await compile(TYPESCRIPT_7, 'program.ts')).toBe('');
}, 60_000);

describe('a wrong call does not compile', () => {
  // One compiler run for all of them: each file's errors are its own lines of the output.
  let errors: string;
  beforeAll(async () => {
    errors = await tsc(...WRONG.map((_, i) => `wrong-${i}.ts`));
  }, 60_000);

  test.each(WRONG.map(([line, named], i) => [line, named, i] as const))('%s (names %s)', (_line, named, i) => {
    const own = errors.split('\n').filter((line) => line.startsWith(`wrong-${i}.ts(`));
    expect(own[0]).toMatch(/^wrong-\d\.ts\(5,\d+\): error TS\d+:/);
    expect(own.join('\n')).toContain(named);
  });
});

/**
 * The check above holds for models whose fields hold no object (reaction, onebot_rule). A model
 * with an object field takes dotted paths into it (`patternProperties` `^status\.`), which
 * openapi-typescript types as an index signature of any key: a misspelt field then compiles, and
 * only the service refuses it. Operators on the declared fields are still checked.
 */
describe('a model with an object field (onebot_bot: status)', () => {
  const head = `import type { components } from './api.js';\ntype Filter = components['schemas']['onebot_bot_filter'];\n`;
  beforeAll(() => {
    writeFileSync(path.join(dir, 'object-misspelt.ts'), `${head}export const filters: Filter = { onlinee: true, 'status.good': 1 };\n`);
    writeFileSync(path.join(dir, 'object-operator.ts'), `${head}export const filters: Filter = { online: { $begins_with: 'x' } };\n`);
  });

  test('a misspelt field compiles, and the service answers it 400 unknown_field', async () => {
    expect(await tsc('object-misspelt.ts')).toBe('');
    const r = await api.post('/api/db/onebot_bot/count', { filters: { onlinee: true } });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({ error: 'unknown_field', field: 'onlinee' });
  }, 60_000);

  test('an operator a declared field does not take still does not compile', async () => {
    expect(await tsc('object-operator.ts')).toContain("'$begins_with'");
  }, 60_000);
});

test('runs against the service: filtered list, count, get_one, update and delete answer and change what they say', async () => {
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'program.ts'], { cwd: dir, env: { ...process.env, BASE_URL: api.url } });
  expect(stderr).toBe('');
  // Matching the filter: user_id 2..99, content +1 or he..., user_name present: g-2 and g-3 (g-4 has no user_name).
  expect(JSON.parse(stdout)).toEqual({
    created: 201,
    list: {
      status: 200,
      ids: ['g-3', 'g-2'],
      versions: [1, 1],
      keys: [
        ['_version', 'id', 'user_id'],
        ['_version', 'id', 'user_id'],
      ],
    },
    count: { status: 200, count: 2 },
    one: { status: 200, id: 'g-3', created_at: 'string' },
    updated: { status: 200, updated: 2 },
    deleted: { status: 200, deleted: 1 },
    refused: { status: 400, error: 'invalid_filter' },
  });
  const stored = await api.post('/api/db/reaction/list', { filters: { id: { $begins_with: 'g-' } }, fields: ['user_name', '_version'] });
  expect(stored.body.data.items).toEqual([
    { id: 'g-1', user_name: 'ann', _version: 1 },
    { id: 'g-2', user_name: 'zed', _version: 2 },
    { id: 'g-3', user_name: 'zed', _version: 2 },
    { id: 'g-4', _version: 1 },
  ]);
}, 60_000);
