import { build, type Metafile } from 'esbuild';
import { buildOptionsFor, loadedAtInit } from '../../../infra/esbuild-options';
import { FUNCTIONS, type FunctionName } from '../../../shared/manifest/functions';

// Each record function's bundle, built as the CDK app builds it, holds its own operation and its
// own request schema and none of another's (a schema is built when its module loads), nor the OpenAPI document's code, nor any of the OneBot receiver (issue 14:
// cold start; issue 25: OneBot is a module the record path never loads). The OneBot models are
// served by every record function all the same: they are model files, apart from the receiver.
// The transaction function is one of them: it serves any model, and its store action loads in no other.
const RECORD_OPERATIONS = {
  create: 'create',
  get_one: 'get-one',
  list: 'list',
  count: 'count',
  update: 'update',
  delete: 'delete',
  transaction: 'transaction',
} as const;

// Each function built once for all the tests below.
const metafiles = new Map<FunctionName, Promise<Metafile>>();
const metafileOf = (fn: FunctionName): Promise<Metafile> => {
  if (!metafiles.has(fn))
    metafiles.set(
      fn,
      build({ ...buildOptionsFor(fn, 'out'), write: false, metafile: true }).then((r) => r.metafile),
    );
  return metafiles.get(fn)!;
};

/** The source files in the bundle's output files: all of them, or those a cold start loads. */
async function bundleInputs(fn: FunctionName, files: 'all' | 'init' = 'all'): Promise<string[]> {
  const metafile = await metafileOf(fn);
  const outputs = files === 'all' ? Object.keys(metafile.outputs) : [...loadedAtInit(metafile)];
  return outputs.flatMap((file) => Object.keys(metafile.outputs[file].inputs));
}

test.each(Object.entries(RECORD_OPERATIONS))(
  'the %s bundle holds its own operation only',
  async (fn, module) => {
    const inputs = await bundleInputs(fn as FunctionName);
    const operations = inputs.filter((i) => /^shared\/api\/(create|get-one|list|count|update|delete|transaction|models|health)\.ts$/.test(i));
    expect(operations).toEqual([`shared/api/${module}.ts`]);
    expect(inputs.some((i) => i.startsWith('shared/store/actions/transact/'))).toBe(fn === 'transaction');
    expect(inputs.filter((i) => i.startsWith('shared/api/requests/') && !i.endsWith('/common.ts'))).toEqual([`shared/api/requests/${module}.ts`]);
    expect(inputs.filter((i) => i.startsWith('shared/onebot/') || i.startsWith('shared/openapi/'))).toEqual([]);
    expect(inputs).toContain('shared/models/onebot.ts');
    // Each model, and defineModel's checks, load with the model's own chunk on its first request (issue 33: cold start).
    const atInit = await bundleInputs(fn as FunctionName, 'init');
    expect(atInit.filter((i) => /^shared\/models\/(define|check-aggregates|reaction|onebot)\.ts$/.test(i))).toEqual([]);
  },
  60_000,
);

test.each(['models', 'health'] as const)(
  'the %s bundle holds nothing of the OneBot receiver',
  async (fn) => {
    expect((await bundleInputs(fn)).filter((i) => i.startsWith('shared/onebot/'))).toEqual([]);
  },
  60_000,
);

// The spool's drain is the local server's (scripts/local/spool-drain.ts): no Lambda bundle holds its timer.
test.each(['onebot', 'onebot_queue'] as const)(
  'the %s bundle holds nothing of the local server',
  async (fn) => {
    expect((await bundleInputs(fn)).filter((i) => i.startsWith('scripts/'))).toEqual([]);
  },
  60_000,
);

// The RE2 engine (~150 KiB) is a chunk loaded by the first regex pattern compiled (issue 24:
// cold start), held only by the functions that validate a rule or run one.
const COMPILES_PATTERNS: ReadonlyArray<FunctionName> = ['create', 'update', 'transaction', 'onebot', 'onebot_queue'];
test.each(FUNCTIONS)(
  '%s loads no regex engine at its cold start',
  async (fn) => {
    const engine = (inputs: string[]) => inputs.some((i) => i.includes('node_modules/re2js/'));
    expect(engine(await bundleInputs(fn, 'init'))).toBe(false);
    expect(engine(await bundleInputs(fn))).toBe(COMPILES_PATTERNS.includes(fn));
  },
  60_000,
);

// The document is built when bundling and read from a file (issue 24: cold start).
test('the openapi bundle holds neither the document builder nor the full zod API', async () => {
  const inputs = await bundleInputs('openapi');
  expect(inputs).toContain('shared/openapi/serve.ts');
  expect(inputs.filter((i) => i.startsWith('shared/openapi/') && i !== 'shared/openapi/serve.ts')).toEqual([]);
  expect(inputs.filter((i) => i.includes('node_modules/zod/v4/classic/'))).toEqual([]);
}, 60_000);

// Every chain checks a body's scopes and an Idempotency-Key's view of the rules, which look models
// up: only where an operation serves models does the catalog come in (shared/access/model-lookup.ts).
test.each(['openapi', 'docs'] as const)(
  'the %s bundle holds no model catalog, no model and no JSON Schema code of zod',
  async (fn) => {
    const inputs = await bundleInputs(fn);
    expect(inputs.filter((i) => /^shared\/models\/(catalog|define|reaction|onebot)\.ts$/.test(i) || i.includes('zod/v4/core/to-json-schema'))).toEqual([]);
  },
  60_000,
);

// The receiver stores events too big for a record in S3, and deliveries in SQS while the
// database is unreachable: both clients are chunks loaded on first use, not at its cold start.
test("the receiver's cold start loads neither the S3 nor the SQS client, which its bundle still holds", async () => {
  const clients = (inputs: string[]) =>
    [...new Set(inputs.map((i) => i.match(/node_modules\/@aws-sdk\/(client-s3|client-sqs)\//)?.[1]).filter(Boolean))].sort();
  expect(clients(await bundleInputs('onebot', 'init'))).toEqual([]);
  expect(clients(await bundleInputs('onebot'))).toEqual(['client-s3', 'client-sqs']);
}, 60_000);

// A monitor without a token never sees the bots, so health's cold start leaves their read (a
// list through the store's planner) on disk until a `read` caller asks (issue 24).
test.each(['health', 'health_check'] as const)(
  "%s's cold start loads neither the bots' read nor the planner, which its bundle still holds",
  async (fn) => {
    const reads = (inputs: string[]) => inputs.filter((i) => i === 'shared/health/bots.ts' || i === 'shared/store/read/plan.ts').sort();
    expect(reads(await bundleInputs(fn, 'init'))).toEqual([]);
    expect(reads(await bundleInputs(fn))).toEqual(['shared/health/bots.ts', 'shared/store/read/plan.ts']);
  },
  60_000,
);

// On Node 24, loading node:http costs ~25 ms of CPU (docs/decisions.md, "Cold start"); the SDK
// imports its HTTP handler when it first sends, and so does the secrets read: no cold start of
// an HTTP function loads it.
test.each(['models', 'health', ...Object.keys(RECORD_OPERATIONS)] as FunctionName[])(
  "%s's cold start does not import node:http",
  async (fn) => {
    const metafile = await metafileOf(fn);
    const imported = [...loadedAtInit(metafile)].flatMap((file) =>
      metafile.outputs[file].imports.filter((i) => i.kind === 'import-statement' && (i.path === 'node:http' || i.path === 'http')).map((i) => i.path),
    );
    expect(imported).toEqual([]);
  },
  60_000,
);

// The change feed runs apart from the writes (issue 34: nothing added to a write in AWS): no
// bundle but the feed's own holds its code, the EventBridge client or the streams client.
test.each(FUNCTIONS.filter((fn) => !fn.startsWith('feed')))(
  'the %s bundle holds nothing of the change feed',
  async (fn) => {
    const inputs = await bundleInputs(fn);
    expect(inputs.filter((i) => i.startsWith('shared/feed/') || /node_modules\/@aws-sdk\/client-(eventbridge|dynamodb-streams)\//.test(i))).toEqual([]);
  },
  60_000,
);
