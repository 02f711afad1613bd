import { type Reply, useApi } from '../support/api';
import { useSteerableProxy, type WriteRule } from '../support/steerable-proxy';
import { engineClient, tableSnapshot } from '../support/table-snapshot';

// Transactions whose answer the service never got: applied by the engine, the answer swallowed
// by the proxy. DynamoDB applies a TransactWriteItems once per ClientRequestToken, so the
// service's own copies, and a retry under the same Idempotency-Key, apply it once. What is stored
// is read from the engine itself, past the proxy, once every held write landed.
const proxy = useSteerableProxy();
const api = useApi();
const TRANSACTION = '/api/db/transaction';

type Item = Record<string, any>;

async function stored(): Promise<Map<string, Item>> {
  const items = await tableSnapshot(engineClient(proxy.target));
  return new Map(items.filter((i) => String(i.pk).startsWith('reaction#')).map((i) => [String(i.id), i]));
}

const transactions: WriteRule = (w) => w.operation === 'TransactWriteItems';
/** The first write the rule picks, and no other. */
const firstOf = (rule: WriteRule): WriteRule => {
  let seen = 0;
  return (w) => rule(w) && ++seen === 1;
};

const described = (r: Reply) => `${r.status} ${r.body?.message ?? r.text.slice(0, 200)}`;

/** A transfer of 1 between two reactions' user_id, and a record made beside it. */
const transfer = (from: string, to: string, made: string) => ({
  operations: [
    { op: 'update', model: 'reaction', id: from, values: { $inc: { user_id: -1 } } },
    { op: 'update', model: 'reaction', id: to, values: { $inc: { user_id: 1 } } },
    { op: 'create', model: 'reaction', id: made, data: { user_id: 0, content: 'made' } },
  ],
});

beforeAll(async () => {
  const ids = ['f-from', 'f-to', 'k-from', 'k-to'];
  const r = await api.post('/api/db/reaction/create', { ids, data: ids.map(() => ({ user_id: 10, content: 'fault' })) });
  expect(described(r)).toMatch(/^201 /);
}, 60_000);

test('a lost answer is settled by sending the same transaction again: it answers 200 and is applied once', async () => {
  await proxy.set({ loseAnswers: firstOf(transactions) });
  const r = await api.post(TRANSACTION, transfer('f-from', 'f-to', 'f-made'));
  await proxy.set('pass');
  await proxy.drained();
  expect(described(r)).toMatch(/^200 /);
  expect(proxy.counts().lost).toBeGreaterThanOrEqual(1);
  const after = await stored();
  expect([after.get('f-from')?.d.user_id, after.get('f-to')?.d.user_id, after.get('f-made')?.d]).toEqual([9, 11, { user_id: 0, content: 'made' }]);
}, 90_000);

test('a keyed transaction whose answer was lost and whose copies were refused answers 503; its retry with the key answers 200 and applies nothing more', async () => {
  const key = { 'idempotency-key': 'tx-lost-key' };
  const body = transfer('k-from', 'k-to', 'k-made');
  await proxy.set({ loseAnswers: transactions, thenRefuse: true });
  const first = await api.post(TRANSACTION, body, key);
  await proxy.set('pass');
  await proxy.drained();
  expect([first.status, first.body.data.error]).toEqual([503, 'outcome_unknown']);
  const landed = await stored();
  expect([landed.get('k-from')?.d.user_id, landed.get('k-to')?.d.user_id]).toEqual([9, 11]);
  // The key stays claimed for the first run's lease (the function's timeout): retried until it is free.
  const end = Date.now() + 30_000;
  let last: Reply;
  for (;;) {
    last = await api.post(TRANSACTION, body, key);
    const busy = last.status === 503 || (last.status === 409 && last.body.data.error === 'idempotency_in_flight');
    if (!busy || Date.now() > end) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  expect(described(last)).toMatch(/^200 /);
  expect(last.body.data.results.map((r: { op: string }) => r.op)).toEqual(['update', 'update', 'create']);
  const after = await stored();
  expect([after.get('k-from')?.d.user_id, after.get('k-to')?.d.user_id, after.get('k-made')?.d.content]).toEqual([9, 11, 'made']);
}, 90_000);
