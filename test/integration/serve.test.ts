import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnServe, stopServe, type ServeProcess } from '../../scripts/local/serve-process';
import { call } from '../../scripts/crash/client';

// npm start's process itself: on dynalite with its own embedded engine on disk, on DynamoDB Local
// through DYNAMODB_ENDPOINT (each start-up gets a table of its own there).
const ROOT = resolve(__dirname, '../..');
const embedded = process.env.RG_TEST_ENGINE === 'dynalite';
const onEmbeddedEngine = embedded ? describe : describe.skip;
const dirs: string[] = [];
const servers: ServeProcess[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recordgate-serve-'));
  dirs.push(dir);
  return dir;
}

function serve(env: Record<string, string>): ServeProcess {
  const engineEnv: Record<string, string> = embedded
    ? {}
    : { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!, TABLE_NAME: env.TABLE_NAME ?? process.env.TABLE_NAME! };
  const server = spawnServe({ ...engineEnv, ...env });
  servers.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => stopServe(s, 'SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Fails with what the server printed when a step takes longer than `ms`, instead of a bare jest timeout. */
function within<T>(ms: number, step: string, server: ServeProcess, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step} took over ${ms} ms; the server printed:\n${server.output().slice(-3000)}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('SIGTERM drains', () => {
  test('batch creates in flight all finish (201) before the engine closes, and every record is stored', async () => {
    const dataDir = freshDir();
    const server = serve({ DATA_DIR: dataDir });
    const url = await server.ready;
    // Two batches: more, on a machine other test runs keep busy, can outlast the 10 s function
    // timeout itself (a 503 from middy, shutdown or not; docs/reliability.md).
    const batches = Array.from({ length: 2 }, (_, b) => {
      const ids = Array.from({ length: 100 }, (_, i) => `b${b}-${i}`);
      return call(url, 'reaction/create', { ids, data: ids.map((id, i) => ({ user_id: i, content: id })) });
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.child.kill('SIGTERM');
    const answers = await within(40_000, 'the answers', server, Promise.all(batches));
    const errors = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":"error"'))
      .map((line) => line.slice(0, 300));
    expect({ statuses: answers.map((a) => a.status), errors }).toEqual({ statuses: [201, 201], errors: [] });
    expect(await within(40_000, 'the exit', server, server.exited)).toEqual({ code: 0, signal: null });
    expect(server.output()).toMatch(/stopped: \d+ request\(s\) drained, engine closed/);
    const again = serve({ DATA_DIR: dataDir });
    expect((await call(await again.ready, 'reaction/count', {})).data.count).toBe(200);
    await stopServe(again);
  }, 180_000);
});

/** One line naming the problem and the fix, no stack trace, exit code 1. */
async function failsToStart(server: ServeProcess, pattern: RegExp): Promise<void> {
  expect((await server.exited).code).toBe(1);
  const lines = server.output().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^recordgate cannot start: /);
  expect(lines[0]).toMatch(pattern);
}

describe('start-up failures: one line, exit 1, nothing created', () => {
  test('a port in use', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const { port } = blocker.address() as AddressInfo;
    const dataDir = join(freshDir(), 'new');
    try {
      await failsToStart(serve({ DATA_DIR: dataDir, PORT: String(port) }), new RegExp(`127\\.0\\.0\\.1:${port}.*PORT=${port + 1}`));
    } finally {
      blocker.close();
    }
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  test('a malformed API_TOKENS', async () => {
    const dataDir = join(freshDir(), 'new');
    await failsToStart(serve({ DATA_DIR: dataDir, API_TOKENS: '{"t": ["read", "sudo"]}' }), /API_TOKENS/);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  test('a model with a fourth indexed field (issue 30, 16a)', async () => {
    const dataDir = join(freshDir(), 'new');
    const swap = `${resolve(ROOT, 'shared/models/reaction.ts')}=${resolve(ROOT, 'test/support/served-models/reaction-four-indexed.ts')}`;
    const server = serve({ DATA_DIR: dataDir, NODE_OPTIONS: `--require ${resolve(ROOT, 'test/support/served-models/swap.cjs')}`, RG_SWAP_MODEL: swap });
    await failsToStart(server, /^recordgate cannot start: model reaction: indexed lists 4 fields .* 3 index slots; fix the model's definition/);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  test('a PORT that is not a number', async () => {
    await failsToStart(serve({ DATA_DIR: join(freshDir(), 'new'), PORT: 'eighty' }), /PORT="eighty" is not a port number/);
  }, 120_000);
});

onEmbeddedEngine('the data directory', () => {
  test('a second npm start on a folder in use fails with one line; the first keeps serving', async () => {
    const dataDir = freshDir();
    const first = serve({ DATA_DIR: dataDir });
    const url = await first.ready;
    await failsToStart(serve({ DATA_DIR: dataDir }), /DATA_DIR .* is in use by another npm start/);
    expect((await call(url, 'reaction/count', {})).status).toBe(200);
    await stopServe(first);
  }, 120_000);

  test('the cursor key is made once per data directory: cursors survive a restart, another folder refuses them', async () => {
    const dataDir = freshDir();
    const first = serve({ DATA_DIR: dataDir });
    let url = await first.ready;
    await call(url, 'reaction/create', { ids: ['k1', 'k2', 'k3'], data: [1, 2, 3].map((n) => ({ user_id: n, content: 'c' })) });
    const cursor = (await call(url, 'reaction/list', { limit: 1 })).data.next_cursor;
    await stopServe(first);
    expect(readdirSync(dataDir)).toContain('cursor-secret');
    expect(readFileSync(join(dataDir, 'cursor-secret'), 'utf8')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = serve({ DATA_DIR: dataDir });
    url = await again.ready;
    const next = await call(url, 'reaction/list', { limit: 1, cursor });
    expect(next.status).toBe(200);
    expect(next.data.items.map((r: { id: string }) => r.id)).toEqual(['k2']);
    await stopServe(again);
    const other = serve({ DATA_DIR: freshDir() });
    expect((await call(await other.ready, 'reaction/list', { limit: 1, cursor })).data.error).toBe('invalid_cursor');
    await stopServe(other);
  }, 180_000);
});
