import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How long requests in flight get to finish after SIGTERM/SIGINT (a Lambda's own timeout). */
export const DRAIN_MS = 10_000;

/**
 * The signal that stops at once, cutting what is in flight. One Ctrl-C can reach the server
 * twice (the terminal signals the whole process group, and a wrapper such as npm or the tsx CLI
 * relays it to its child as well), so a second signal says nothing about the person at the
 * keyboard; a third does (docs/local-server.md).
 */
export const FORCING_SIGNAL = 3;

/** How often the server checks that the process that started it is still there. */
const PARENT_CHECK_MS = 500;

/** A connection this young without a request yet is a client still sending one. */
const ARRIVING_MS = 1_000;

/**
 * After a signal the listener stays open until this long passes without a new connection (at
 * most LISTENING_AFTER_SIGNAL_MS): closing it resets every connection the kernel has accepted
 * but the server has not taken yet, and those are requests already sent.
 */
const QUIET_MS = 50;
const LISTENING_AFTER_SIGNAL_MS = 2_000;

/** Counts a server's requests from their headers to their answer's end, and its connections that have not sent one yet. */
export class RequestTracker {
  inFlight = 0;
  finished = 0;
  /** Connections taken from the listener so far. */
  accepted = 0;
  draining = false;
  private readonly waiting = new Map<Socket, number>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.accepted++;
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
 * Closes the listener once a QUIET_MS passed in which the server took no new connection. The
 * check runs from setImmediate, right after the event loop's poll phase, which takes every
 * connection the kernel has completed: one the listener's close would reset. Whatever is taken
 * meanwhile is served as any request in flight, and answered with `Connection: close`.
 */
async function stopListening(server: Server, requests: RequestTracker): Promise<void> {
  const giveUp = Date.now() + LISTENING_AFTER_SIGNAL_MS;
  for (;;) {
    const before = requests.accepted;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    await new Promise((resolve) => setImmediate(resolve));
    if (requests.accepted === before || Date.now() >= giveUp) break;
  }
  // net's close, not http's: http's also drops every connection without a request in progress,
  // which includes a client whose request is on the wire but not yet read.
  NetServer.prototype.close.call(server);
}

/**
 * Stops accepting connections once none is waiting to be taken (stopListening), lets the
 * requests in flight finish (at most `drainMs` from the call), cuts what is left, then runs
 * `closeEngine`: the engine outlives every request that may still write. Returns how many
 * requests finished during the drain and how many were cut.
 */
export async function drain(
  server: Server,
  requests: RequestTracker,
  closeEngine: () => Promise<void>,
  drainMs = DRAIN_MS,
): Promise<{ drained: number; cut: number }> {
  const finishedBefore = requests.finished;
  requests.draining = true;
  const deadline = Date.now() + drainMs;
  await stopListening(server, requests);
  while ((requests.inFlight > 0 || requests.arriving() > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    // Looked at after a poll phase: when the process was too busy to read for a while, the
    // requests that arrived meanwhile are read first, not taken for silent connections and cut.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const cut = requests.inFlight;
  server.closeAllConnections();
  await closeEngine();
  return { drained: requests.finished - finishedBefore - cut, cut };
}

/**
 * Calls `gone` with the parent's pid once the process that started this one has exited.
 * `npm start` runs the server through `sh -c`; `kill <npm pid>` makes npm pass SIGTERM to that
 * shell only, which dies of it, and npm exits after it: the server kept serving, orphaned.
 * Node has no parent-death signal, so the parent is polled: on POSIX an orphan's
 * `process.ppid` turns to its new parent; Windows does not re-parent, so there the parent is
 * probed with signal 0.
 */
export function watchParent(gone: (parent: number) => void): void {
  const parent = process.ppid;
  // Started by init, or as a container's first process: there is no parent to outlive.
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent && exists(parent)) return;
    clearInterval(timer);
    gone(parent);
  }, PARENT_CHECK_MS);
  timer.unref();
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process this one may not signal has the number (a parent run as root, as by sudo).
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
