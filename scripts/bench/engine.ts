import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { prepareTable } from '../local/engine';

export interface BenchEngine {
  endpoint: string;
  /** The engine's process, whose CPU a benchmark may meter. */
  pid: number;
  stop(): Promise<void>;
}

// The engine runs in its own process, as DynamoDB runs apart from a Lambda function: the
// client's work and the engine's work then do not share one thread, and parallel requests
// can overlap with the engine's work the way they do against the real service.
const CHILD = `
const server = require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Starts dynalite (in memory) in a child process, creates the table, and points the store at it. */
export async function startBenchEngine(tableName: string): Promise<BenchEngine> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const endpoint = `http://127.0.0.1:${port.trim()}`;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = tableName;
  await prepareTable(endpoint, tableName);
  return {
    endpoint,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
