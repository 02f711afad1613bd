// The Done-when program of issue 36, compiled and run by test/integration/client-package.test.ts in
// an empty project that installed the packed recordgate-client: as ESM here, and as CommonJS with
// these imports written as `import x = require(...)`. The test points BASE at a proxy in front of
// the local server and gives each run its own TAG.
import { createClient, JsonNumber, RecordgateError } from 'recordgate-client';
import { reaction } from 'recordgate-client/models';

const BASE = 'http://127.0.0.1:3000';
const TAG = 'client-package';

const failureOf = (call: Promise<unknown>): Promise<string> =>
  call.then(
    () => 'answered',
    (error: unknown) => (error instanceof RecordgateError ? `${error.status} ${error.code}` : error instanceof Error ? error.name : String(error)),
  );

async function main(): Promise<void> {
  const reactions = createClient({ baseUrl: BASE }).db.model(reaction);

  // Filters, and every page through the iterator: 25 records, 20 of them matching, 7 to a page.
  await reactions.create({ data: Array.from({ length: 25 }, (_, i) => ({ user_id: 1000 + i, content: `${TAG}-page` })) });
  const paged: number[] = [];
  for await (const record of reactions.all({ filters: { content: `${TAG}-page`, user_id: { $gte: 1005 } }, fields: ['user_id'], limit: 7 })) {
    paged.push(Number(record.user_id));
  }

  // A create under a key whose first answer the proxy turns into a 503: retried under the same key, stored once.
  const created = await reactions.create(
    { data: { user_id: JsonNumber.from('18446744073709551617'), content: `${TAG}-retry-me` } },
    { idempotencyKey: `${TAG}-key` },
  );
  // A read answered 503 once: retried.
  const { count } = await reactions.count({ filters: { content: `${TAG}-retry-me` } });
  // A write without a key answered 503: not retried, the error is the caller's.
  const unkeyed = await failureOf(reactions.create({ data: { user_id: 1, content: `${TAG}-unkeyed-503` } }, { idempotencyKey: false }));

  // Requests the proxy never answers: cancelled by a signal, and by a time limit.
  const controller = new AbortController();
  const held = failureOf(reactions.count({ filters: { content: `${TAG}-hold-me` } }, { signal: controller.signal }));
  setTimeout(() => controller.abort(), 50);
  const cancelled = await held;
  const timedOut = await failureOf(reactions.list({ filters: { content: `${TAG}-hold-me` } }, { timeoutMs: 100 }));

  console.log(
    JSON.stringify({ paged, created: { id: created.id, user_id: String(created.user_id), version: created._version }, count, unkeyed, cancelled, timedOut }),
  );
}

void main();
