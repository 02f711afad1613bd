import { build } from 'esbuild';
import { buildOptionsFor, loadedAtInit } from '../../../infra/bundling';
import type { FunctionName } from '../../../shared/http/functions';

// Each record function's bundle, built as the CDK app builds it, holds its own operation and
// none of another's, nor the OpenAPI document's code, nor any of the OneBot receiver (issue 14:
// cold start; issue 25: OneBot is a module the record path never loads). The OneBot models are
// served by every record function all the same: they are model files, apart from the receiver.
const RECORD_OPERATIONS = { create: 'create', get_one: 'get-one', list: 'list', count: 'count', update: 'update', delete: 'delete' } as const;

async function bundleInputs(fn: FunctionName): Promise<string[]> {
  const { metafile } = await build({ ...buildOptionsFor(fn, 'out'), write: false, metafile: true });
  return Object.values(metafile.outputs).flatMap((o) => Object.keys(o.inputs));
}

test.each(Object.entries(RECORD_OPERATIONS))(
  'the %s bundle holds its own operation only',
  async (fn, module) => {
    const inputs = await bundleInputs(fn as FunctionName);
    const operations = inputs.filter((i) => /^shared\/api\/(create|get-one|list|count|update|delete|models|health)\.ts$/.test(i));
    expect(operations).toEqual([`shared/api/${module}.ts`]);
    expect(inputs.filter((i) => i.startsWith('shared/onebot/') || i.startsWith('shared/openapi/'))).toEqual([]);
    expect(inputs).toContain('shared/models/onebot.ts');
    // The regex engine only where records are validated (a regex rule's pattern is compiled).
    expect(inputs.some((i) => i.includes('node_modules/re2js/'))).toBe(fn === 'create' || fn === 'update');
  },
  60_000,
);

test.each(['models', 'health'] as const)(
  'the %s bundle holds nothing of the OneBot receiver, nor the regex engine',
  async (fn) => {
    expect((await bundleInputs(fn)).filter((i) => i.startsWith('shared/onebot/') || i.includes('node_modules/re2js/'))).toEqual([]);
  },
  60_000,
);

// The document is built when bundling and read from a file (issue 24: cold start).
test('the openapi bundle holds neither the document builder nor the full zod API', async () => {
  const inputs = await bundleInputs('openapi');
  expect(inputs).toContain('shared/openapi/operation.ts');
  expect(inputs.filter((i) => i.startsWith('shared/openapi/') && i !== 'shared/openapi/operation.ts')).toEqual([]);
  expect(inputs.filter((i) => i.includes('node_modules/zod/v4/classic/'))).toEqual([]);
}, 60_000);

// The receiver stores events too big for a record in S3, and deliveries in SQS while the
// database is unreachable: both clients are chunks loaded on first use, not at its cold start.
test("the receiver's cold start loads neither the S3 nor the SQS client, which its bundle still holds", async () => {
  const { metafile } = await build({ ...buildOptionsFor('onebot', 'out'), write: false, metafile: true });
  const inputsOf = (files: Iterable<string>) => [...files].flatMap((file) => Object.keys(metafile.outputs[file].inputs));
  const clients = (inputs: string[]) =>
    [...new Set(inputs.map((i) => i.match(/node_modules\/@aws-sdk\/(client-s3|client-sqs)\//)?.[1]).filter(Boolean))].sort();
  expect(clients(inputsOf(loadedAtInit(metafile)))).toEqual([]);
  expect(clients(inputsOf(Object.keys(metafile.outputs)))).toEqual(['client-s3', 'client-sqs']);
}, 60_000);
