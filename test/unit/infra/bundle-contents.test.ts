import { build, type Metafile } from 'esbuild';
import { ESBUILD_OPTIONS, handlerEntry } from '../../../infra/bundling';

// Each record function's bundle, built as the CDK app builds it, holds its own operation and
// none of another's, nor the health and OneBot bot-status code (issue 14: cold start).
const RECORD_OPERATIONS = { create: 'create', get_one: 'get-one', list: 'list', count: 'count', update: 'update', delete: 'delete' } as const;

/** One esbuild run for all six functions: their metafile, shared by the tests below. */
let metafile: Metafile;
beforeAll(async () => {
  ({ metafile } = await build({
    ...ESBUILD_OPTIONS,
    external: [...ESBUILD_OPTIONS.external],
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    entryPoints: Object.fromEntries(Object.keys(RECORD_OPERATIONS).map((fn) => [fn, handlerEntry(fn)])),
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'error',
  }));
}, 120_000);

/** The source files in one function's bundle: its entry's output and what that output statically imports. */
function bundleInputs(fn: string): string[] {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((out) => outputs[out].entryPoint === handlerEntry(fn));
  if (!entry) throw new Error(`no output for ${fn}`);
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of outputs[out].imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
  };
  visit(entry);
  return [...seen].flatMap((out) => Object.keys(outputs[out].inputs));
}

test.each(Object.entries(RECORD_OPERATIONS))('the %s bundle holds its own operation only', (fn, module) => {
  const inputs = bundleInputs(fn);
  const operations = inputs.filter((i) => /^shared\/api\/(create|get-one|list|count|update|delete|models|health)\.ts$/.test(i));
  expect(operations).toEqual([`shared/api/${module}.ts`]);
  expect(inputs.filter((i) => i.startsWith('shared/onebot/bots') || i.startsWith('shared/openapi/'))).toEqual([]);
});
