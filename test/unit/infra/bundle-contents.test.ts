import { build } from 'esbuild';
import { ESBUILD_OPTIONS, handlerEntry } from '../../../infra/bundling';

// Each record function's bundle, built as the CDK app builds it, holds its own operation and
// none of another's, nor the OpenAPI document's code, nor any of the OneBot receiver (issue 14:
// cold start; issue 25: OneBot is a module the record path never loads). The OneBot models are
// served by every record function all the same: they are model files, apart from the receiver.
const RECORD_OPERATIONS = { create: 'create', get_one: 'get-one', list: 'list', count: 'count', update: 'update', delete: 'delete' } as const;

async function bundleInputs(fn: string): Promise<string[]> {
  const { metafile } = await build({
    ...ESBUILD_OPTIONS,
    external: [...ESBUILD_OPTIONS.external],
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    entryPoints: [handlerEntry(fn)],
    write: false,
    outfile: 'index.js',
    metafile: true,
    logLevel: 'error',
  });
  return Object.values(metafile.outputs).flatMap((o) => Object.keys(o.inputs));
}

test.each(Object.entries(RECORD_OPERATIONS))(
  'the %s bundle holds its own operation only',
  async (fn, module) => {
    const inputs = await bundleInputs(fn);
    const operations = inputs.filter((i) => /^shared\/api\/(create|get-one|list|count|update|delete|models|health)\.ts$/.test(i));
    expect(operations).toEqual([`shared/api/${module}.ts`]);
    expect(inputs.filter((i) => i.startsWith('shared/onebot/') || i.startsWith('shared/openapi/'))).toEqual([]);
    expect(inputs).toContain('shared/models/onebot.ts');
    // The regex engine only where records are validated (a regex rule's pattern is compiled).
    expect(inputs.some((i) => i.includes('node_modules/re2js/'))).toBe(fn === 'create' || fn === 'update');
  },
  60_000,
);

test.each(['models', 'health'])(
  'the %s bundle holds nothing of the OneBot receiver, nor the regex engine',
  async (fn) => {
    expect((await bundleInputs(fn)).filter((i) => i.startsWith('shared/onebot/') || i.includes('node_modules/re2js/'))).toEqual([]);
  },
  60_000,
);
