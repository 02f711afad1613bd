import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** dynalite on disk in a process of its own, for tests that kill it with SIGKILL. */
export interface DynaliteProcess {
  child: ChildProcess;
  endpoint: Promise<string>;
  exited: Promise<unknown>;
}

const ROOT = resolve(__dirname, '../..');
const ENTRY = `
const server = require('dynalite')({ path: process.env.RG_DYNALITE_DIR, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port));
`;

export function spawnDynalite(dir: string): DynaliteProcess {
  const child = spawn(process.execPath, ['-e', ENTRY], { cwd: ROOT, env: { ...process.env, RG_DYNALITE_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((done) => child.once('exit', done));
  const endpoint = new Promise<string>((done, fail) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const port = /listening on (\d+)/.exec(text)?.[1];
      if (port) done(`http://127.0.0.1:${port}`);
    });
    void exited.then(() => fail(new Error(`dynalite exited before it listened: ${text}`)));
  });
  return { child, endpoint, exited };
}
