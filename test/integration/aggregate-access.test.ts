import * as fc from 'fast-check';
import * as z from 'zod';
import { consumeStream } from '../../shared/feed/consume';
import { defineModel } from '../../shared/models/define';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { streamSoFar } from '../support/stream-records';

// Issue 35: aggregates under row rules. A tenant's caller reads only its tenant's counters (their
// sort keys start with its key space); a caller held to its own records (owner rule, no admin)
// reads only aggregates grouping by the owner field, for its own value, and count answers it from
// them the same way. Random callers of two tenants write random records; then none of them sees a
// count or a sum of a record it does not reach.
const NOTE = defineModel({
  name: 'ag_note',
  description: 'notes per user, per tenant, counted',
  schema: z.strictObject({ org: z.string(), owner: z.string().optional(), kind: z.string(), score: z.number() }),
  owner: 'owner',
  tenant: { field: 'org', claim: 'tenant' },
  aggregates: {
    mine: { group_by: ['owner', 'kind'], count: true, sum: ['score'] },
    by_kind: { group_by: ['kind'], count: true },
  },
});
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/catalog-with').catalogWith(['ag_note'], () => [NOTE]));

const TOKENS = {
  ann: { scopes: ['read', 'write'], sub: 'ann', claims: { tenant: 'acme' } },
  bob: { scopes: ['read', 'write'], sub: 'bob', claims: { tenant: 'acme' } },
  cat: { scopes: ['read', 'write'], sub: 'cat', claims: { tenant: 'globex' } },
  ann_elsewhere: { scopes: ['read', 'write'], sub: 'ann', claims: { tenant: 'globex' } },
  root: { scopes: ['read', 'write', 'admin'], sub: 'root', claims: { tenant: 'acme' } },
  groot: { scopes: ['read', 'write', 'admin'], sub: 'groot', claims: { tenant: 'globex' } },
};
type Who = keyof typeof TOKENS;
process.env.API_TOKENS = JSON.stringify(TOKENS);
const api = useApi();
const post = (who: Who, op: string, body: unknown) => api.post(`/api/db/ag_note/${op}`, body, { authorization: `Bearer ${who}` });

const WRITERS: Who[] = ['ann', 'bob', 'cat', 'ann_elsewhere'];
const KINDS = ['idea', 'todo', 'bug'];
const WRITES = fc.sample(fc.record({ who: fc.constantFrom(...WRITERS), kind: fc.constantFrom(...KINDS), score: fc.integer({ min: -9, max: 99 }) }), {
  numRuns: 60,
  seed: 3535,
});

/** What a caller reaches: its tenant's records, and of them its own unless it is admin. */
const reached = (who: Who) => (w: (typeof WRITES)[number]) =>
  TOKENS[w.who].claims.tenant === TOKENS[who].claims.tenant && (TOKENS[who].scopes.includes('admin') || TOKENS[w.who].sub === TOKENS[who].sub);

function recount(who: Who, groupBy: ReadonlyArray<'owner' | 'kind'>, withSum: boolean) {
  const groups = new Map<string, { key: Record<string, string>; count: number; sum?: { score: number } }>();
  for (const w of WRITES.filter(reached(who))) {
    const values = { owner: TOKENS[w.who].sub, kind: w.kind };
    const key = Object.fromEntries(groupBy.map((f) => [f, values[f]]));
    const group = groups.get(JSON.stringify(key)) ?? { key, count: 0, ...(withSum ? { sum: { score: 0 } } : {}) };
    group.count += 1;
    if (group.sum) group.sum.score += w.score;
    groups.set(JSON.stringify(key), group);
  }
  return [...groups.values()].sort((a, b) => (JSON.stringify(a.key) < JSON.stringify(b.key) ? -1 : 1));
}

const sortedGroups = (groups: Array<{ key: unknown }>) => [...groups].sort((a, b) => (JSON.stringify(a.key) < JSON.stringify(b.key) ? -1 : 1));

beforeAll(async () => {
  await recordLayout(NOTE);
  for (const w of WRITES) expect((await post(w.who, 'create', { data: { kind: w.kind, score: w.score } })).status).toBe(201);
  const answer = await consumeStream(await streamSoFar(), { subscriptions: [], queue: { send: async () => undefined } });
  expect(answer.batchItemFailures).toEqual([]);
});

test.each(Object.keys(TOKENS) as Who[])('%s reads the counts and sums of the records it reaches, and of no other', async (who) => {
  const admin = TOKENS[who].scopes.includes('admin');
  const mine = await post(who, 'aggregate', { name: 'mine', limit: 1000 });
  expect(mine.status).toBe(200);
  expect(sortedGroups(mine.body.data.groups)).toEqual(recount(who, ['owner', 'kind'], true));

  const byKind = await post(who, 'aggregate', { name: 'by_kind' });
  if (admin) expect(sortedGroups(byKind.body.data.groups)).toEqual(recount(who, ['kind'], false));
  else {
    expect(byKind.status).toBe(403);
    expect(byKind.body.data).toMatchObject({ error: 'forbidden', aggregate: 'by_kind', details: [{ path: 'name' }] });
  }

  for (const kind of KINDS) {
    // Without admin, the owner is in the filter: the caller's own group of `mine`, one counter read.
    const counted = await post(who, 'count', { filters: { kind } });
    const expected = WRITES.filter(reached(who)).filter((w) => w.kind === kind).length;
    expect(counted.body.data).toMatchObject({ count: expected, aggregate: admin ? 'by_kind' : 'mine' });
    expect(counted.body.data.scanned).toBeLessThanOrEqual(1);
  }
  // Another caller's owner value asks for groups this one has none of.
  const others = await post(who, 'aggregate', { name: 'mine', filters: { owner: who === 'bob' ? 'ann' : 'bob' } });
  expect(others.body.data.groups).toEqual(admin ? recount(who, ['owner', 'kind'], true).filter((g) => g.key.owner === 'bob') : []);
});
