import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * How the proxy treats the link to the engine:
 * - `pass`: bytes flow both ways;
 * - `refuse`: connections are reset and new ones refused, as when the database host goes away;
 * - `hang`: connections are accepted and nothing is forwarded, so no request is ever answered;
 * - `drop`: requests reach the engine (and are applied), their answers are swallowed.
 * A connection that lost bytes to `hang` or `drop` stays silent after the link heals, as a
 * connection through a broken middlebox does: only a new one works again.
 */
export type LinkMode = 'pass' | 'refuse' | 'hang' | 'drop';

export interface SteerableProxy {
  endpoint: string;
  set(mode: LinkMode): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy in front of the test's database engine that a test steers; the engine itself stays the real one. */
export async function startSteerableProxy(target: string): Promise<SteerableProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let mode: LinkMode = 'pass';
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(targetPort), hostname);
        track(client);
        track(upstream);
        let silent = false;
        const forward = (to: Socket, swallow: () => boolean) => (chunk: Buffer) => {
          if (silent || swallow()) silent = true;
          else to.write(chunk);
        };
        client.on(
          'data',
          forward(upstream, () => mode === 'hang'),
        );
        upstream.on(
          'data',
          forward(client, () => mode === 'hang' || mode === 'drop'),
        );
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server?.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  await listen(0);
  const port = (server!.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async set(next) {
      if (next === 'refuse') await stop();
      else if (!server?.listening) await listen(port);
      mode = next;
    },
    close: stop,
  };
}

/**
 * For a test file: the service reaches the engine through a proxy the file steers, started
 * before its first request (the table was made on the engine itself) and closed after it.
 */
export function useSteerableProxy(): Pick<SteerableProxy, 'set'> {
  let proxy: SteerableProxy | undefined;
  beforeAll(async () => {
    proxy = await startSteerableProxy(process.env.DYNAMODB_ENDPOINT!);
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  });
  afterAll(() => proxy?.close());
  return { set: (mode) => proxy!.set(mode) };
}
