/**
 * `npm run export -- --model <name> [--out <file> [--resume]] [--endpoint <url> | --aws]`:
 * every record of the model as NDJSON (docs/record-api.md, "Export and import"), read from the
 * table itself, every tenant and owner; standard output without --out. The summary goes to
 * standard error.
 */
import { exportModel } from './transfer/export-file';
import { modelNamed, readArgs, runCommand } from './transfer/cli';
import { openTable } from './transfer/table';

const USAGE = 'npm run export -- --model <name> [--out <file> [--resume]] [--endpoint <url> | --aws]';

runCommand('export', async () => {
  const args = readArgs({ out: { type: 'string' }, resume: { type: 'boolean' } }, USAGE);
  const model = await modelNamed(args.model);
  const table = await openTable({ endpoint: args.endpoint, aws: args.aws }, { create: false });
  try {
    const report = await exportModel(model, { out: args.out, resume: args.resume });
    const resumed = report.resumedAfter === undefined ? '' : ` after ${report.resumedAfter}, the last complete line`;
    console.error(`exported ${report.written} records of ${model.name} from ${table.name}${resumed}${args.out ? ` to ${args.out}` : ''}`);
    return 0;
  } finally {
    table.close();
  }
});
