import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { quantile, round } from './stats';

/* The local server as the benchmarks that load it start it, and the load they send. */

/** Concurrent senders of a load, each sending its next request as soon as the last is answered. */
export const SENDERS = 16;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `npm start` in a child process (the local server, the deployed handlers) against the bench engine, with `env` over the bench's own. */
export async function startServer(endpoint: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/serve.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DYNAMODB_ENDPOINT: endpoint, API_TOKENS: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`local server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => line.includes('listening on') && resolve());
  });
  child.removeAllListeners('exit');
  // Its stdout stays read until it exits, or its shutdown message would hit a closed pipe.
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => {
      child.kill();
      return exited;
    },
  };
}

export interface Load {
  sent: number;
  ok: number;
  failed: Record<string, number>;
  perSecond: number;
  p50: number;
  p99: number;
}

/** `SENDERS` loops, each sending its next request as soon as the last is answered, for `seconds`. */
export async function load(
  seconds: number,
  next: (n: number) => { path: string; method: string; body?: string; headers?: Record<string, string> },
  url: string,
): Promise<Load> {
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  let counter = 0;
  let ok = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (performance.now() < deadline) {
        const request = next(counter++);
        const t = performance.now();
        try {
          const response = await fetch(`${url}${request.path}`, { method: request.method, body: request.body, headers: request.headers });
          await response.arrayBuffer();
          if (response.status < 300) ok++;
          else failed[response.status] = (failed[response.status] ?? 0) + 1;
        } catch (error) {
          failed[(error as Error).name] = (failed[(error as Error).name] ?? 0) + 1;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { sent: counter, ok, failed, perSecond: round(ok / elapsed), p50: round(quantile(latencies, 0.5)), p99: round(quantile(latencies, 0.99)) };
}
