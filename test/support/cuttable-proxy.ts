import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of the test's database engine that a test can cut (connections reset,
 * new ones refused, as when the database host goes away) and restore on the same port. The
 * engine itself stays the real one.
 */
export async function startCuttableProxy(
  target: string,
): Promise<{ endpoint: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let server: Server;
  const listen = (port: number) =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(targetPort), hostname);
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  await listen(0);
  const port = (server!.address() as AddressInfo).port;
  const cut = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return { endpoint: `http://127.0.0.1:${port}`, cut, restore: () => listen(port), close: cut };
}
