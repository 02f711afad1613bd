/**
 * `npm run bench`: every benchmark of issue 7, then docs/benchmarks.md, .json and the scaling
 * chart. `--quick` runs each once on small data and writes to a temporary directory unless
 * `--out` says where; `--only cold-start,bulk` picks benchmarks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { db } from '../../shared/store/client';
import { aggregatesBench } from './aggregates';
import { bulkBench } from './bulk';
import { capacityBench } from './capacity';
import { coldStartBench } from './cold-start';
import { feedCostBench } from './feed-cost';
import type { BenchContext } from './context';
import { startBenchEngine } from './engine';
import { Meter } from './meter';
import { receiverLoadBench } from './receiver-load';
import { writeReport, type Section } from './report';
import { scalingBench } from './scaling';
import { warmCpuBench } from './warm-cpu';

const BENCHMARKS: Record<string, (ctx: BenchContext) => Promise<Section>> = {
  'cold-start': coldStartBench,
  'warm-cpu': warmCpuBench,
  capacity: capacityBench,
  scaling: scalingBench,
  bulk: bulkBench,
  'receiver-load': receiverLoadBench,
  'feed-cost': feedCostBench,
  aggregates: aggregatesBench,
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, out: { type: 'string' }, only: { type: 'string' } } });
  const quick = values.quick!;
  const names = values.only ? values.only.split(',') : Object.keys(BENCHMARKS);
  const unknown = names.filter((n) => !BENCHMARKS[n]);
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  const out = resolve(values.out ?? (quick ? join(tmpdir(), 'recordgate-bench') : 'docs'));

  // A data folder of the run's own for everything it starts (the local server of receiver-load,
  // the receiver's spool and blobs): the user's DATA_DIR, `.data` by default, may be held by a
  // running `npm start`, and a benchmark has no business writing into a user's data.
  const dataDir = mkdtempSync(join(tmpdir(), 'recordgate-bench-data-'));
  process.env.DATA_DIR = dataDir;
  const startedAt = new Date();
  const started = performance.now();
  // Ratios are only as good as a quiet machine: the report says how busy it was.
  const loads = [loadavg()[0]];
  const sampler = setInterval(() => loads.push(loadavg()[0]), 5_000).unref();
  const engine = await startBenchEngine('recordgate_bench');
  const meter = new Meter(db()).attach();
  const log = (message: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`);
  const ctx: BenchContext = { quick, meter, endpoint: engine.endpoint, enginePid: engine.pid, log };
  const sections: Section[] = [];
  try {
    for (const name of names) {
      log(`${name}…`);
      sections.push(await BENCHMARKS[name](ctx));
    }
  } finally {
    clearInterval(sampler);
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  // Checked over the whole run, not one benchmark: no operation of the store may ever scan.
  sections
    .find((s) => s.id === 'capacity')
    ?.targets.push({
      what: 'Scan commands sent by the store during the whole run',
      measured: String(meter.count('ScanCommand')),
      target: '0',
      met: meter.count('ScanCommand') === 0,
    });
  const reproduce = `npm run bench${quick ? ' -- --quick' : ''}${values.only ? ` -- --only ${values.only}` : ''}`;
  const files = writeReport(out, sections, { quick, startedAt, seconds: (performance.now() - started) / 1000, reproduce, loads });
  for (const s of sections)
    for (const t of s.targets) log(`${t.met === null ? '?' : t.met ? 'ok' : 'MISSED'}  ${s.title}: ${t.what}: ${t.measured} (goal ${t.target})`);
  log(`wrote ${files.join(', ')}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
