/**
 * How fast the index build fills a new index on the embedded engine (dynalite on disk, as
 * `npm start` runs it): stores N records of a model, indexes one more of its fields, and times
 * shared/store/layout/index-build.ts filling it. `npx tsx scripts/bench/index-build.ts [records]`.
 * Not part of `npm run bench`: a one-off figure for docs/decisions.md (issue 22).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { buildIndexes } from '../../shared/store/layout/index-build';
import { createRecords } from '../../shared/store/records';
import { prepareTable, startDynalite } from '../local/engine';

async function main(): Promise<void> {
  const records = Number(process.argv[2] ?? 5000);
  process.env.TABLE_NAME = 'bench_index_build';
  const dir = mkdtempSync(join(tmpdir(), 'recordgate-index-build-'));
  const engine = await startDynalite({ path: dir });
  process.env.DYNAMODB_ENDPOINT = engine.endpoint;
  try {
    await prepareTable(engine.endpoint, process.env.TABLE_NAME);
    const schema = z.strictObject({ title: z.string(), rank: z.number() });
    const before = defineModel({ name: 'bench', description: 'bench', schema, indexed: ['title'] });
    const after = defineModel({ name: 'bench', description: 'bench', schema, indexed: ['title', 'rank'] });
    const entries = Array.from({ length: records }, (_, i) => ({ id: `r${String(i).padStart(7, '0')}`, data: { title: `title ${i}`, rank: i % 1000 } }));
    await createRecords(before, { records: entries }, { pathOf: (i) => ['data', i] });
    const started = performance.now();
    const { filled, layout } = await buildIndexes(after);
    const seconds = (performance.now() - started) / 1000;
    if (layout.building.length > 0 || filled !== records) throw new Error(`build incomplete: ${filled} of ${records}`);
    console.log(`${records} records filled in ${seconds.toFixed(2)} s: ${Math.round(records / seconds)} records/s`);
  } finally {
    engine.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
