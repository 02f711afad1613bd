import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How long requests in flight get to finish after SIGTERM/SIGINT (a Lambda's own timeout). */
export const DRAIN_MS = 10_000;

/** A connection this young without a request yet is a client still sending one. */
const ARRIVING_MS = 1_000;

/** Counts a server's requests from their headers to their answer's end, and its connections that have not sent one yet. */
export class RequestTracker {
  inFlight = 0;
  finished = 0;
  draining = false;
  private readonly waiting = new Map<Socket, number>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.waiting.set(socket, Date.now());
      socket.once('close', () => this.waiting.delete(socket));
    });
    server.on('request', (req, res) => {
      this.waiting.delete(req.socket);
      this.inFlight++;
      // While draining, each answer ends its connection: no kept-alive socket outlives the drain.
      if (this.draining) res.setHeader('connection', 'close');
      res.once('close', () => {
        this.inFlight--;
        this.finished++;
      });
    });
  }

  /** Connections accepted in the last second whose request has not been read yet. */
  arriving(): number {
    const now = Date.now();
    return [...this.waiting.values()].filter((acceptedAt) => now - acceptedAt < ARRIVING_MS).length;
  }
}

/**
 * Stops accepting connections, lets the requests in flight finish (at most `drainMs`), cuts
 * what is left, then runs `closeEngine`: the engine outlives every request that may still write.
 * Returns how many requests finished during the drain and how many were cut.
 */
export async function drain(
  server: Server,
  requests: RequestTracker,
  closeEngine: () => Promise<void>,
  drainMs = DRAIN_MS,
): Promise<{ drained: number; cut: number }> {
  const finishedBefore = requests.finished;
  requests.draining = true;
  // net's close, not http's: http's also drops every connection without a request in progress,
  // which includes a client whose request is on the wire but not yet read.
  NetServer.prototype.close.call(server);
  const deadline = Date.now() + drainMs;
  while ((requests.inFlight > 0 || requests.arriving() > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const cut = requests.inFlight;
  server.closeAllConnections();
  await closeEngine();
  return { drained: requests.finished - finishedBefore - cut, cut };
}
