/**
 * The embedded engine alone in a process, started as `npm start` starts it
 * (scripts/local/engine.ts), so that its memory is read apart from its client's: the soak's
 * parent sends `sample`, and it answers with its memory after a full collection (run with
 * `--expose-gc`). argv[2] is its data folder; none keeps it in memory.
 */
import { startDynalite } from '../local/engine';

export interface EngineMemory {
  rss: number;
  heapUsed: number;
}

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('engine-process needs node --expose-gc');
const send = (message: unknown) => process.send?.(message);

startDynalite({ path: process.argv[2] }).then(({ endpoint }) => send({ endpoint }));
process.on('message', (message) => {
  if (message !== 'sample') return;
  collect();
  const { rss, heapUsed } = process.memoryUsage();
  send({ rss, heapUsed } satisfies EngineMemory);
});
// The parent gone, nothing is left to answer.
process.on('disconnect', () => process.exit(0));
