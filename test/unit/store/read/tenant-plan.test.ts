import fc from 'fast-check';
import * as z from 'zod';
import { defineModel } from '../../../../shared/models/define';
import { ExpressionBuilder } from '../../../../shared/store/filter/expression';
import { parseFilter } from '../../../../shared/store/filter/parse';
import { dataSpace, indexAttributes, itemKey } from '../../../../shared/store/keys';
import { reached } from '../../../../shared/store/reach';
import { ID_ORDER, parseOrder, planAccess } from '../../../../shared/store/read/plan';
import { INDEX_SLOTS, TABLE_KEY } from '../../../../shared/store/table';
import { utf8Order } from '../../../../shared/store/utf8-order';

// A tenant's reads stay within its own keys: whatever the filter and order, the key condition
// of its plan holds for no key of another tenant, and for every key of its own records that
// the filter matches (the key condition only narrows; the filter decides the rest).
const model = defineModel({
  name: 'tenanted',
  description: 'tenant plan test',
  schema: z.strictObject({ org: z.string(), s: z.string(), n: z.number().optional() }),
  indexed: ['s', 'n'],
  tenant: { field: 'org', claim: 'tenant' },
  shards: 2,
});

/** Whether a key condition as the plan writes it (`a = v AND sk = v | BETWEEN | begins_with`) holds for an item's keys. */
function holds(condition: string, x: ExpressionBuilder, item: Record<string, string>): boolean {
  const value = (placeholder: string) => x.values[placeholder] as string;
  return condition.split(/ AND (?![^(]*\))(?=[#b])/).every((part) => {
    let m = /^(#n\d+) = (:v\d+)$/.exec(part);
    if (m) return item[x.names[m[1]]] === value(m[2]);
    m = /^(#n\d+) BETWEEN (:v\d+) AND (:v\d+)$/.exec(part);
    if (m) return utf8Order(item[x.names[m[1]]], value(m[2])) >= 0 && utf8Order(item[x.names[m[1]]], value(m[3])) <= 0;
    m = /^begins_with\((#n\d+), (:v\d+)\)$/.exec(part);
    if (m) return item[x.names[m[1]]].startsWith(value(m[2]));
    throw new Error(`unread key condition part: ${part}`);
  });
}

/** An item's keys as stored: table key and index keys, in its tenant's key space. */
const keysOf = (id: string, data: Record<string, unknown>) => ({ ...itemKey(model, id, dataSpace(model, data)), ...indexAttributes(model, id, data) });

// Tenants that differ by the escape's own characters and by prefixes: the ranges must still be apart.
// A long tenant leaves less of the key to a value: values past that room share a key prefix.
const tenant = fc.constantFrom('acme', 'acm', 'acme\u0000', 'acme\u0001', 'acme\u0000x', 'a', 'b', '\u0001', 'é'.repeat(32));
const long = 'x'.repeat(140);
const text = fc.constantFrom('', 'a', 'ab', 'b', 'z', '\u0000', 'a\u0001', `${long}a`, `${long}b`, long, `${'é'.repeat(70)}`);
const id = fc.constantFrom('a', 'ab', 'b', 'c1', 'z');
const idCompare = fc.oneof(
  id.map((v) => ({ id: v })),
  fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte', '$begins_with'), id).map(([op, v]) => ({ id: { [op]: v } })),
  fc.tuple(id, id).map(([a, b]) => ({ id: { $between: a <= b ? [a, b] : [b, a] } })),
);
const fieldCompare = fc.oneof(
  text.map((v) => ({ s: v })),
  fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte', '$begins_with'), text).map(([op, v]) => ({ s: { [op]: v } })),
  fc.integer({ min: -2, max: 2 }).map((v) => ({ n: { $gte: v } })),
);
const filters = fc.oneof(
  idCompare,
  fieldCompare,
  fc.tuple(idCompare, fieldCompare).map(([a, b]) => ({ ...a, ...b })),
  fc.constant({}),
);

test("a tenant's plan reads none of another tenant's keys, and every key of its own matches", () => {
  fc.assert(
    fc.property(
      tenant,
      tenant,
      filters,
      fc.constantFrom(undefined, 's', '-s', 'n', '-id'),
      fc.array(fc.record({ id, s: text, n: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined }) }), { maxLength: 6 }),
      (mine, other, request, orderBy, records) => {
        fc.pre(mine !== other);
        const view = reached(model, { tenant: mine });
        const filter = parseFilter(view, request);
        const plan = planAccess(view, filter, orderBy === undefined ? ID_ORDER : parseOrder(view, orderBy));
        for (const record of records) {
          const data = { org: mine, s: record.s, ...(record.n === undefined ? {} : { n: record.n }) };
          for (const [org, mustHold] of [
            [other, false],
            [mine, true],
          ] as const) {
            const keys = keysOf(record.id, { ...data, org });
            const shard = plan.shards.find((s) => `${model.name}#${s}` === keys[TABLE_KEY.partitionKey]);
            if (shard === undefined) continue;
            const x = new ExpressionBuilder();
            const held = holds(plan.keyCondition(shard, x), x, keys);
            if (!mustHold) expect(held).toBe(false);
            // Its own records: the key condition never drops one that the filter would keep.
            else if (matches(request, record)) expect(held).toBe(true);
          }
        }
      },
    ),
    { numRuns: 500 },
  );
});

/** The reference: whether a record matches the test's filters (id and s compare as DynamoDB does, by UTF-8 bytes). */
function matches(request: Record<string, unknown>, record: { id: string; s: string; n?: number }): boolean {
  return Object.entries(request).every(([field, condition]) => {
    const held = (record as Record<string, unknown>)[field];
    if (typeof condition !== 'object' || condition === null) return held === condition;
    const [[op, operand]] = Object.entries(condition);
    if (held === undefined) return false;
    const order = typeof held === 'number' ? held - (operand as number) : utf8Order(held as string, String(operand));
    switch (op) {
      case '$gt':
        return order > 0;
      case '$gte':
        return order >= 0;
      case '$lt':
        return order < 0;
      case '$lte':
        return order <= 0;
      case '$begins_with':
        return (held as string).startsWith(operand as string);
      default: {
        const [a, b] = operand as [string, string];
        return utf8Order(held as string, a) >= 0 && utf8Order(held as string, b) <= 0;
      }
    }
  });
}

test('a cursor position outside the caller’s key space does not fit its plan', () => {
  const view = reached(model, { tenant: 'acme' });
  const plan = planAccess(view, parseFilter(view, {}), ID_ORDER);
  expect(plan.space).toBe('acme\u0000');
  expect(plan.startKey(0, 'acme\u0000x')).toEqual({ pk: 'tenanted#0', sk: 'acme\u0000x' });
  const byIndex = planAccess(view, parseFilter(view, {}), parseOrder(view, 's'));
  expect(byIndex.startKey(1, 'acme\u0000"v\u0000id1')).toMatchObject({ sk: 'acme\u0000id1', [INDEX_SLOTS[0].sortKey]: 'acme\u0000"v\u0000id1' });
});
