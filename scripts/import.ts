/**
 * `npm run import -- --model <name> --in <file> [--overwrite] [--endpoint <url> | --aws]`:
 * stores the records of an export (docs/record-api.md, "Export and import"), ids, tenants,
 * owners and system fields kept, each checked as create checks one. Run again after an
 * interruption: what is stored the same is skipped. Exits 1 when a line was refused or its id
 * holds another record.
 */
import { importFile } from './transfer/import-file';
import { modelNamed, readArgs, runCommand } from './transfer/cli';
import { openTable } from './transfer/table';
import { StartupError } from './local/startup';

const USAGE = 'npm run import -- --model <name> --in <file> [--overwrite] [--endpoint <url> | --aws]';
/** A progress line on standard error every this many lines read. */
const PROGRESS_EVERY = 1000;

runCommand('import', async () => {
  const args = readArgs({ in: { type: 'string' }, overwrite: { type: 'boolean' } }, USAGE);
  const model = await modelNamed(args.model);
  if (args.in === undefined) throw new StartupError(`no --in file given; usage: ${USAGE}`);
  const table = await openTable({ endpoint: args.endpoint, aws: args.aws }, { create: !args.aws });
  try {
    let told = 0;
    const summary = await importFile(model, {
      input: args.in,
      overwrite: args.overwrite,
      progress: (line, s) => {
        if (line - told < PROGRESS_EVERY) return;
        told = line;
        console.error(`through line ${line}: ${s.created} created, ${s.skipped} skipped`);
      },
    });
    console.log(
      `${model.name} in ${table.name}: ${summary.read} read, ${summary.created} created, ${summary.skipped} skipped (stored the same already), ${summary.overwritten} overwritten, ${summary.differs.length} left as stored (another record under the id), ${summary.refused.length} refused`,
    );
    if (summary.differs.length > 0) console.log(`  another record under the id (--overwrite replaces it), lines: ${summary.differs.join(', ')}`);
    for (const { line, details } of summary.refused.sort((a, b) => a.line - b.line))
      console.log(`  line ${line} refused: ${details.map((d) => `${d.path || 'record'}: ${d.message}`).join('; ')}`);
    return summary.differs.length > 0 || summary.refused.length > 0 ? 1 : 0;
  } finally {
    table.close();
  }
});
