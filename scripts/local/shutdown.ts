import type { Server } from 'node:http';

/** How long requests in flight get to finish after SIGTERM/SIGINT (a Lambda's own timeout). */
export const DRAIN_MS = 10_000;

/** Counts a server's requests from their headers to their answer's end. */
export class RequestTracker {
  inFlight = 0;
  finished = 0;

  constructor(server: Server) {
    server.on('request', (_req, res) => {
      this.inFlight++;
      res.once('close', () => {
        this.inFlight--;
        this.finished++;
      });
    });
  }
}

/**
 * Stops accepting connections, lets the requests in flight finish (at most `drainMs`), cuts
 * what is left, then runs `closeEngine`: the engine outlives every request that may still write.
 * Returns how many requests finished during the drain and how many were cut.
 */
export async function drain(server: Server, requests: RequestTracker, closeEngine: () => Promise<void>, drainMs = DRAIN_MS): Promise<{ drained: number; cut: number }> {
  const finishedBefore = requests.finished;
  server.close();
  const deadline = Date.now() + drainMs;
  while (requests.inFlight > 0 && Date.now() < deadline) {
    // An idle kept-alive connection would hold close() open; connections mid-request are left alone.
    server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const cut = requests.inFlight;
  server.closeAllConnections();
  await closeEngine();
  return { drained: requests.finished - finishedBefore - cut, cut };
}
