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

/**
 * Runs the server entry itself under node, not through the tsx CLI: that would put a second
 * process in between, and a SIGKILL sent to it would not reach the server.
 */
export function spawnServe(env: Record<string, string>, timeoutMs = 90_000): ServeProcess {
  // What a test run set for its in-process engine must not leak in: the server picks its own.
  const inherited = { ...process.env };
  for (const name of ['DYNAMODB_ENDPOINT', 'CURSOR_SECRET', 'API_TOKENS', 'TABLE_NAME']) delete inherited[name];
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'scripts/serve.ts')], {
    cwd: ROOT,
    env: { ...inherited, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
