import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, stopServe, type ServeProcess } from '../../scripts/local/serve-process';

// Issue 30, finding 4: creates sent to an idle `npm start` just before SIGTERM, each on a
// connection of its own. The kernel accepts a connection before the server takes it; closing the
// listener then reset those it had not taken yet (5-7 of 21 at 0 ms, 4-18 at 30 ms). A process
// test of npm start's own embedded engine, so dynalite only.
const onEmbeddedEngine = process.env.RG_TEST_ENGINE === 'dynalite' ? describe : describe.skip;

const REQUESTS = 21;
const dirs: string[] = [];
const servers: ServeProcess[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => stopServe(s, 'SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A create on a connection of its own: its status, or the transport error that came instead. */
function createAlone(url: string, id: string): Promise<number | string> {
  const body = JSON.stringify({ ids: [id], data: [{ user_id: 1, content: id }] });
  return new Promise((resolve) => {
    const req = request(
      `${url}/api/db/reaction/create`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
        res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

async function signalAfter(delayMs: number): Promise<{ answers: Array<number | string>; exit: unknown; output: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-backlog-'));
  dirs.push(dataDir);
  const server = spawnServe({ DATA_DIR: dataDir });
  servers.push(server);
  const url = await server.ready;
  const answers = Array.from({ length: REQUESTS }, (_, i) => createAlone(url, `r${i}`));
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  server.child.kill('SIGTERM');
  return { answers: await Promise.all(answers), exit: await server.exited, output: server.output() };
}

onEmbeddedEngine('requests sent just before SIGTERM are answered, none reset', () => {
  test.each([0, 30])(
    'SIGTERM %i ms after 21 creates on separate connections',
    async (delayMs) => {
      const { answers, exit, output } = await signalAfter(delayMs);
      // Every request gets an HTTP answer; a create the machine was too slow for may answer its timeout.
      const notAnswered = answers.filter((a) => typeof a !== 'number');
      if (notAnswered.length > 0) console.log(`npm start printed:\n${output.slice(-3000)}`);
      expect({ notAnswered, exit }).toEqual({ notAnswered: [], exit: { code: 0, signal: null } });
    },
    120_000,
  );
});
