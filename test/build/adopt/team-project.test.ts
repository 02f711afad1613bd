import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { spawnRecordgateDev, stopServe, type ServeProcess } from '../../../scripts/local/serve-process';
import { WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Issue 36's Done-when, adopting without forking: a team's project outside the repository, with
 * recordgate installed from its packed tarball and its models in its own folder (./team/models,
 * TypeScript importing `recordgate/models`), synthesises a stack holding the RecordGate construct
 * (./team/app.ts) and starts `recordgate dev --models ./models`, both from the same models.
 * Deploys nothing. The install is npm's own, of what `npm pack` puts in the tarball, with the
 * dependencies the package declares and the CDK the team's app brings, from npm's cache
 * (--prefer-offline, as the README snippets' install), and the project's postinstall that
 * docs/deploying.md gives for the dynalite patches.
 */
const ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);
const NOTE = 'A note of the team that adopted recordgate';
const REACTION = 'An emoji reaction from repository-migration data';
/** The versions this repository is tested with, of what the team installs beside recordgate. */
const { devDependencies } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** Every file under a folder. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? filesUnder(path.join(dir, name)) : [path.join(dir, name)]));

let dir: string;
let project: string;
let template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
let assembly: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'adopt-'));
  project = path.join(dir, 'team');
  cpSync(path.join(__dirname, 'team'), project, { recursive: true });
  const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'team-service',
      private: true,
      scripts: { postinstall: 'patch-package --patch-dir node_modules/recordgate/patches' },
      // aws-cdk-lib and constructs are recordgate's optional peers: a CDK app installs its own.
      dependencies: { recordgate: `file:../${filename}`, 'aws-cdk-lib': devDependencies['aws-cdk-lib'], constructs: devDependencies.constructs },
      devDependencies: { 'patch-package': devDependencies['patch-package'] },
    }),
  );
  await npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], project);

  // The team's synth, as `cdk synth` runs its app (cdk.json "app": "npx tsx app.ts"), into a folder the test reads.
  assembly = path.join(dir, 'cdk.out');
  await run(process.execPath, ['--import', 'tsx', 'app.ts', assembly], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
  template = JSON.parse(readFileSync(path.join(assembly, 'TeamService.template.json'), 'utf8'));
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resourcesOf = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
/** A function's bundle in the cloud assembly, by its logical id's prefix (the construct's path). */
const bundleOf = (prefix: string): string => {
  const [, fn] = resourcesOf('AWS::Lambda::Function').find(([id]) => id.startsWith(prefix))!;
  return path.join(assembly, `asset.${(fn.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '')}`);
};

test('the installed package ships the construct, the dev server and the models entry, and no tests; the project patched dynalite', () => {
  const installed = path.join(project, 'node_modules/recordgate');
  expect(existsSync(path.join(project, 'node_modules/dynalite/db/stream.js'))).toBe(true);
  for (const file of ['infra/record-gate.ts', 'catalog/bundle-process.ts', 'scripts/recordgate.mjs', 'scripts/dev.ts', 'shared/models/index.ts', 'patches'])
    expect(existsSync(path.join(installed, file))).toBe(true);
  expect(existsSync(path.join(installed, 'test'))).toBe(false);
});

test("the stack's index definitions and the change feed's filter name the team's models and the OneBot models, not reaction", () => {
  const [[, layouts]] = resourcesOf('Custom::ModelLayouts');
  const names = JSON.parse(layouts.Properties.Models as string).map((m: { name: string }) => m.name);
  expect(names).toEqual(['onebot_event', 'onebot_bot', 'onebot_rule', 'note', 'tag']);
  const filtered = resourcesOf('AWS::Lambda::EventSourceMapping').find(([, r]) => r.Properties.FilterCriteria)!;
  expect(JSON.stringify(filtered[1].Properties.FilterCriteria)).toContain('note#');
  expect(JSON.stringify(filtered[1].Properties.FilterCriteria)).not.toContain('reaction#');
});

test("the API's document, built at synth, has the team's routes and not reaction's", () => {
  const document = JSON.parse(readFileSync(path.join(bundleOf('ApiFunctionsopenapi'), 'openapi.json'), 'utf8'));
  expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/db/note/create', '/api/db/note/list', '/api/db/tag/create']));
  expect(Object.keys(document.paths).filter((p) => p.includes('/reaction/'))).toEqual([]);
});

test("the record functions' bundles hold the team's models, and nothing of reaction", () => {
  for (const fn of ['create', 'list']) {
    const files = filesUnder(bundleOf(`ApiFunctions${fn}`)).map((file) => readFileSync(file, 'utf8'));
    expect(files.some((text) => text.includes(NOTE))).toBe(true);
  }
  const everything = resourcesOf('AWS::Lambda::Function').flatMap(([id]) => filesUnder(bundleOf(id)));
  expect(everything.filter((file) => readFileSync(file, 'utf8').includes(REACTION))).toEqual([]);
});

test('recordgate dev refuses a models path that cannot serve in one line, before anything starts', async () => {
  const refused = spawnRecordgateDev(path.join(project, 'node_modules/.bin/recordgate'), ['--models', './nowhere'], project, {
    DATA_DIR: path.join(dir, 'refused'),
  });
  expect(await refused.exited).toEqual({ code: 1, signal: null });
  expect(refused.output().trim()).toBe(
    `recordgate cannot start: models path ${path.join(project, 'nowhere')} does not exist; give a module of defineModel exports, or a folder of them`,
  );
  expect(existsSync(path.join(dir, 'refused'))).toBe(false);
}, 60_000);

test('recordgate dev refuses an embedded engine without the dynalite patches, naming the postinstall that applies them', async () => {
  // The last patch's new file, moved away as a project without that postinstall would lack it.
  const patched = path.join(project, 'node_modules/dynalite/db/stream.js');
  renameSync(patched, `${patched}.away`);
  try {
    const refused = spawnRecordgateDev(path.join(project, 'node_modules/.bin/recordgate'), ['--models', './models'], project, {
      DATA_DIR: path.join(dir, 'unpatched'),
    });
    expect(await refused.exited).toEqual({ code: 1, signal: null });
    expect(refused.output()).toContain('patch-package --patch-dir node_modules/recordgate/patches');
    expect(existsSync(path.join(dir, 'unpatched'))).toBe(false);
  } finally {
    renameSync(`${patched}.away`, patched);
  }
}, 60_000);

/** Waits for a delivery, whose time the machine's load decides: the test's own timeout bounds it. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(100);
}

describe('recordgate dev --models, from the same models', () => {
  let server: ServeProcess;
  let url: string;
  type Answer = { status: number; body: { data: { error?: string; id?: string; items?: unknown[]; models?: Array<{ name: string }> } } };
  const post = async (route: string, body: unknown): Promise<Answer> => {
    const answer = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: answer.status, body: (await answer.json()) as Answer['body'] };
  };

  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.listen();
    server = spawnRecordgateDev(path.join(project, 'node_modules/.bin/recordgate'), ['--models', './models', '--port', '0'], project, {
      DATA_DIR: path.join(dir, 'data'),
      SUBSCRIPTIONS: JSON.stringify([{ name: 'notes', models: ['note'], url: receiver.url, secret: receiver.secret }]),
    });
    url = await server.ready;
  }, 120_000);
  afterAll(async () => {
    if (server) await stopServe(server);
    await receiver.close();
  });

  test("serves the team's models beside the OneBot models, and not reaction", async () => {
    const answer = (await (await fetch(`${url}/api/db/models`)).json()) as Answer['body'];
    const names = answer.data.models!.map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(['note', 'tag', 'onebot_event']));
    expect(names).not.toContain('reaction');
    expect((await post('/api/db/reaction/list', {})).body.data.error).toBe('unknown_model');
  });

  test("creates and lists a record of the team's model, checked by the team's schema", async () => {
    const created = await post('/api/db/note/create', { data: { title: 'adopted', stars: 5 } });
    expect(created.status).toBe(201);
    const refused = await post('/api/db/note/create', { data: { title: '', stars: 'five' } });
    expect(refused).toMatchObject({ status: 422, body: { data: { error: 'validation_error' } } });
    const listed = await post('/api/db/note/list', { filters: { stars: { $gte: 5 } } });
    expect(listed.status).toBe(200);
    expect(listed.body.data.items).toEqual([expect.objectContaining({ id: created.body.data.id, title: 'adopted', stars: 5 })]);
    expect((await post('/api/db/tag/create', { data: { label: 'x' } })).status).toBe(201);
  });

  test("the change feed's process serves the team's models too: a subscription to one of them gets its changes", async () => {
    const created = await post('/api/db/note/create', { data: { title: 'told', stars: 1 } });
    expect(created.status).toBe(201);
    await until(() => receiver.received.some((r) => r.body.data.id === created.body.data.id));
    expect(receiver.received.find((r) => r.body.data.id === created.body.data.id)?.body).toMatchObject({
      type: 'note.create',
      data: { model: 'note', op: 'create' },
    });
    expect(receiver.refused).toEqual([]);
  }, 60_000);
});
