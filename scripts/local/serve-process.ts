import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/** `npm start` (scripts/serve.ts) in a process of its own, for the crash, shutdown and start-up tests. */
export interface ServeProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Its URL once it listens; rejects with its output if it exits or stays silent first. */
  ready: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const ROOT = resolve(__dirname, '../..');

/** The environment a served process gets: what a test run set for its in-process engine must not leak in. */
function serveEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  for (const name of ['DYNAMODB_ENDPOINT', 'CURSOR_SECRET', 'API_TOKENS', 'TABLE_NAME']) delete inherited[name];
  return { ...inherited, PORT: '0', ...env };
}

/**
 * Runs the server entry itself under node, as `npm start` does but without npm and its shell:
 * a SIGKILL sent to this child reaches the server.
 */
export function spawnServe(env: Record<string, string>, timeoutMs = 90_000): ServeProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'scripts/serve.ts')], {
    cwd: ROOT,
    env: serveEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchServe(child, timeoutMs);
}

/**
 * `npm start` itself, in a process group of its own as a terminal would start it (npm, the
 * shell npm runs the script with, the server): `process.kill(-child.pid!, signal)` is what
 * Ctrl-C or a service manager sends to all of them.
 */
export function spawnNpmStart(env: Record<string, string>, timeoutMs = 90_000): ServeProcess {
  const child = spawn('npm', ['start'], { cwd: ROOT, env: serveEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return watchServe(child, timeoutMs);
}

/**
 * `recordgate dev` as a project that installed recordgate runs it (`npx recordgate dev ...`):
 * the package's bin under node, in the project's folder.
 */
export function spawnRecordgateDev(bin: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string>, timeoutMs = 90_000): ServeProcess {
  const child = spawn(process.execPath, [bin, 'dev', ...args], { cwd, env: serveEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  return watchServe(child, timeoutMs);
}

function watchServe(child: ChildProcess, timeoutMs: number): ServeProcess {
  let text = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const ready = new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server printed no URL within ${timeoutMs} ms:\n${text}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (url) {
        clearTimeout(timer);
        done(url);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code ?? signal}) before listening:\n${text}`));
    });
  });
  ready.catch(() => undefined); // a caller that only awaits `exited` must not see an unhandled rejection
  return { child, output: () => text, ready, exited };
}

/** Signals the server (unless it already exited) and waits for the exit. */
export async function stopServe(server: ServeProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}
