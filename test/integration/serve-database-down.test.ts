import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnServe, stopServe, type ServeProcess } from '../../scripts/local/serve-process';
import { startSteerableProxy, type LinkMode, type SteerableProxy } from '../support/steerable-proxy';
import { bodyOf, groupMessage } from './onebot-fixtures';

// Issue 30, finding 9: `npm start` against an external DYNAMODB_ENDPOINT that hangs never
// listened, and against one that refuses it exited after about 60 s; meanwhile every bot
// delivery was refused, and no OneBot sender re-sends. The engine is the test run's own, behind
// a proxy the test steers; the table is a new one, made once the engine answers. A process test
// of npm start, run once (dynalite).
const onOneEngine = process.env.RG_TEST_ENGINE === 'dynalite' ? describe : describe.skip;

const dirs: string[] = [];
const servers: ServeProcess[] = [];
const proxies: SteerableProxy[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => stopServe(s, 'SIGKILL')));
  await Promise.all(proxies.map((p) => p.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  retryAfter: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function post(url: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
}

/** Waits (polling) until `condition` holds, failing with what the server printed after `ms`. */
async function until(condition: () => boolean | Promise<boolean>, what: string, server: ServeProcess, ms = 60_000): Promise<void> {
  const giveUp = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUp) throw new Error(`${what} did not happen within ${ms} ms; npm start printed:\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const ROOT = resolve(__dirname, '../..');
/** The environment that makes a served process load `standIn` for the reaction model, as an edited model file would. */
const reactionAs = (standIn: string): Record<string, string> => ({
  NODE_OPTIONS: `--require ${resolve(ROOT, 'test/support/served-models/swap.cjs')}`,
  RG_SWAP_MODEL: `${resolve(ROOT, 'shared/models/reaction.ts')}=${resolve(ROOT, 'test/support/served-models', standIn)}`,
});

const SELF_ID = 20930;
const deliveries = [1, 2, 3].map((n) => bodyOf(groupMessage(30930, 9300 + n, 40930, `kept ${n}`), 1_810_000_000 + n, SELF_ID));

onOneEngine('npm start with its database down', () => {
  test.each<LinkMode>(['hang', 'refuse'])(
    'an engine that %s: it listens, answers records 503, keeps OneBot deliveries, and stores them once the engine is back',
    async (mode) => {
      const proxy = await startSteerableProxy(process.env.DYNAMODB_ENDPOINT!);
      proxies.push(proxy);
      await proxy.set(mode);
      const dataDir = mkdtempSync(join(tmpdir(), `recordgate-down-${mode}-`));
      dirs.push(dataDir);
      const server = spawnServe({
        DATA_DIR: dataDir,
        DYNAMODB_ENDPOINT: proxy.endpoint,
        TABLE_NAME: `down_${mode}_${Date.now()}`,
        ONEBOT_SECRET: '',
        ONEBOT_SELF_IDS: '',
      });
      servers.push(server);
      // It listens within the bound of one start-up attempt (a hung call's 3 s timeout), not never.
      const url = await server.ready;
      expect(server.output()).toMatch(/does not answer .*serving anyway/);

      const count = await post(url, '/api/db/reaction/count', '{}');
      expect({ status: count.status, code: count.body.data?.error, retryAfter: count.retryAfter }).toEqual({
        status: 503,
        code: 'database_unavailable',
        retryAfter: '1',
      });
      const acknowledged = [];
      for (const body of deliveries) acknowledged.push((await post(url, '/onebot/v11/', body, { 'x-self-id': String(SELF_ID) })).status);
      expect(acknowledged).toEqual([200, 200, 200]);

      await proxy.set('pass');
      await until(() => /database reached/.test(server.output()), 'the start-up checks', server);
      const stored = async () => {
        const r = await post(url, '/api/db/onebot_event/list', JSON.stringify({ filters: { self_id: SELF_ID }, limit: 100 }));
        return r.status === 200 ? (r.body.data.items as Array<{ message_id: number }>).map((e) => Number(e.message_id)).sort() : [];
      };
      await until(async () => (await stored()).length === deliveries.length, 'the kept deliveries stored', server);
      expect(await stored()).toEqual([9301, 9302, 9303]);
      expect((await post(url, '/api/db/reaction/count', '{}')).status).toBe(200);
      await stopServe(server);
    },
    180_000,
  );

  test('a model layout its records cannot follow, found once the engine is back, still refuses the start in one line', async () => {
    const proxy = await startSteerableProxy(process.env.DYNAMODB_ENDPOINT!);
    proxies.push(proxy);
    const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-down-layout-'));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, DYNAMODB_ENDPOINT: proxy.endpoint, TABLE_NAME: `down_layout_${Date.now()}` };
    // A record stored while the model has one shard.
    const first = spawnServe(env);
    servers.push(first);
    const created = await post(await first.ready, '/api/db/reaction/create', JSON.stringify({ data: { user_id: 1, content: 'stored' } }));
    expect(created.status).toBe(201);
    await stopServe(first);

    await proxy.set('refuse');
    const again = spawnServe({ ...env, ...reactionAs('reaction-four-shards.ts') });
    servers.push(again);
    await again.ready;
    expect(again.output()).toMatch(/does not answer .*serving anyway/);
    await proxy.set('pass');
    expect(await again.exited).toEqual({ code: 1, signal: null });
    expect(again.output()).toMatch(
      /^recordgate cannot start: Model reaction cannot be served: its records are stored with shards: 1, but its definition says shards: 4/m,
    );
  }, 180_000);
});
