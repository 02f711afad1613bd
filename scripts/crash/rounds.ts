import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, stopServe } from '../local/serve-process';
import { checkConsistency } from './consistency';
import { Ledger, runWriters } from './workload';

export interface CrashOptions {
  rounds: number;
  writers: number;
  /** The server is killed at a random moment between these many milliseconds into the writes. */
  killAfterMs: [number, number];
  log?: (line: string) => void;
}

export interface CrashReport {
  rounds: number;
  acknowledged: number;
  /** Records compared with every index, summed over the checks after each restart. */
  recordsChecked: number;
  problems: string[];
}

/**
 * Crash rounds on one data directory: start `npm start`'s entry, let writers run, `kill -9` it
 * mid-write, start it again on the same directory and check every index against the records.
 */
export async function runCrashRounds(options: CrashOptions): Promise<CrashReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-crash-'));
  const ledger = new Ledger();
  const report: CrashReport = { rounds: 0, acknowledged: 0, recordsChecked: 0, problems: [] };
  let server = spawnServe({ DATA_DIR: dataDir });
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const url = await server.ready;
      let killed = false;
      const [low, high] = options.killAfterMs;
      const kill = setTimeout(
        () => {
          killed = true;
          server.child.kill('SIGKILL');
        },
        low + Math.random() * (high - low),
      );
      report.acknowledged += await runWriters({ url, round, writers: options.writers, ledger, stopped: () => killed });
      clearTimeout(kill);
      await server.exited;
      server = spawnServe({ DATA_DIR: dataDir });
      const result = await checkConsistency(await server.ready, ledger);
      report.rounds = round;
      report.recordsChecked += result.records;
      report.problems.push(...result.problems.map((p) => `round ${round}: ${p}`));
      options.log?.(`round ${round}: ${result.records} records, ${result.problems.length} inconsistencies, ${report.acknowledged} writes acknowledged so far`);
      // What the check saw is now the known state, so the next round's check is exact again.
      for (const [id, states] of ledger.possible) if (states.size > 1) ledger.possible.delete(id);
    }
  } finally {
    await stopServe(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return report;
}
