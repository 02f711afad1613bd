import { type ChildProcess, spawn } from 'node:child_process';
import { choiceInThisProcess } from '../../catalog/in-process';
import { causeOf, log } from '../../shared/log';
import type { FeedPlace, LocalFeed } from './feed';

const CHILD = require.resolve('./feed-child');
/** The first pause before a feed that died is started again, doubled for each death in a row up to RESTART_CAP_MS. */
const RESTART_MS = 1_000;
const RESTART_CAP_MS = 30_000;

export interface FeedProcess extends LocalFeed {
  /** The running feed process's id (none while it waits to be started again). */
  pid(): number | undefined;
}

/**
 * Runs the local change feed in a process of its own (./feed-child.ts), so that the server's
 * one thread only answers requests and the feed's work goes to the other core. It is in a
 * process group of its own: a Ctrl-C, which reaches the server's whole group, does not stop it
 * before the server has drained its requests; the server stops it, with `stop`. A feed that dies
 * while the server runs (an uncaught throw, a kill) is logged as `feed_process_died` and started
 * again after a pause that doubles from 1 s up to 30 s while it keeps dying: it resumes from its
 * checkpoint as after a restart of the server, rather than the server serving on without a feed.
 */
export function startFeedProcess(place: FeedPlace, entry = CHILD): FeedProcess {
  let stopping = false;
  let deaths = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let restart: NodeJS.Timeout | undefined;

  const start = () => {
    const startedAt = Date.now();
    // The models this process serves (`recordgate dev --models`) are the feed's too.
    const served = choiceInThisProcess();
    const started = spawn(process.execPath, ['--import', 'tsx', entry, JSON.stringify(place), ...(served ? [JSON.stringify(served)] : [])], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Its own process group on POSIX; on Windows `detached` would open it a console window instead.
      detached: process.platform !== 'win32',
    });
    let error: unknown;
    started.on('error', (failed) => {
      error = failed;
    });
    child = started;
    // Said on each start after the first, as the server says the first: which process the feed is.
    if (deaths > 0) log.info('feed_process_started', { pid: started.pid });
    exited = new Promise((done) =>
      started.once('close', (code, signal) => {
        child = undefined;
        done();
        if (stopping) return;
        // A feed that ran a while before it died starts the count again.
        deaths = Date.now() - startedAt > RESTART_CAP_MS ? 1 : deaths + 1;
        const pause = Math.min(RESTART_MS * 2 ** (deaths - 1), RESTART_CAP_MS);
        log.error('feed_process_died', { exit_code: code, signal, ...causeOf(error), restart_in_ms: pause });
        restart = setTimeout(start, pause);
      }),
    );
  };
  start();

  return {
    pid: () => child?.pid,
    async stop() {
      stopping = true;
      clearTimeout(restart);
      if (child?.connected) child.send('stop');
      await exited;
    },
  };
}
