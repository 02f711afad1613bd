import { parseFilter } from '../../../../shared/store/filter/parse';
import { ExpressionBuilder } from '../../../../shared/store/filter/expression';
import { parseOrder, planAccess } from '../../../../shared/store/read/plan';
import { shardOf } from '../../../../shared/store/keys';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 4);

function plan(filters: unknown, orderBy?: string) {
  const p = planAccess(note, parseFilter(note, filters), parseOrder(note, orderBy));
  const x = new ExpressionBuilder();
  const keyCondition = p
    .keyCondition(p.shards[0], x)
    .replace(/#n\d+/g, (n) => x.names[n])
    .replace(/:v\d+/g, (v) => JSON.stringify(x.values[v]));
  return { ...p, keyCondition };
}

test('id equality is a point query on the one shard that holds the id', () => {
  const p = plan({ id: 'abc', title: 'x' });
  expect(p.indexName).toBeUndefined();
  expect(p.shards).toEqual([shardOf(note, 'abc')]);
  expect(p.keyCondition).toBe(`pk = "note#${shardOf(note, 'abc')}" AND sk = "abc"`);
  expect(p.exact).toBe(false);
});

test('equality on an indexed field uses its index and keeps id order', () => {
  const p = plan({ rank: 5 });
  expect(p.indexName).toBe('gsi1');
  expect(p.shards).toEqual([0, 1, 2, 3]);
  expect(p.keyCondition).toMatch(/^g1pk = "note#rank#0" AND begins_with\(g1sk, "2\d+5\\u0000"\)$/);
  expect(p.exact).toBe(true);
});

test('ordering by an indexed field reads its index, with a range as key condition', () => {
  const p = plan({ title: { $begins_with: 'ab' } }, '-title');
  expect(p.indexName).toBe('gsi2');
  expect(p.forward).toBe(false);
  expect(p.keyCondition).toBe('g2pk = "note#title#0" AND begins_with(g2sk, "\\"ab")');
});

test('anything else queries every shard of the model, never the whole table', () => {
  const p = plan({ done: true });
  expect(p.indexName).toBeUndefined();
  expect(p.shards).toEqual([0, 1, 2, 3]);
  expect(p.keyCondition).toBe('pk = "note#0"');
  expect(p.exact).toBe(false);
});

test('id ranges become sort key conditions', () => {
  expect(plan({ id: { $gt: 'm' } }).keyCondition).toBe('pk = "note#0" AND sk > "m"');
});

test('an id compared with "" or with more than an id holds is decided without a key condition', () => {
  // Nothing to read: ids are never empty nor longer than 200 characters.
  for (const filters of [{ id: '' }, { id: { $lt: '' } }, { id: { $lte: '', $gt: 'a' } }, { id: 'x'.repeat(201) }, { id: { $begins_with: 'x'.repeat(201) } }]) {
    expect(plan(filters).shards).toEqual([]);
    expect(plan(filters, 'rank').shards).toEqual([]);
  }
  // No narrowing, the filter decides; a further range still narrows.
  expect(plan({ id: { $gte: '' } }).keyCondition).toBe('pk = "note#0"');
  expect(plan({ id: { $begins_with: '' } }).keyCondition).toBe('pk = "note#0"');
  expect(plan({ id: { $gt: 'x'.repeat(201) } }).keyCondition).toBe('pk = "note#0"');
  expect(plan({ id: { $gt: '', $lt: 'm' } }).keyCondition).toBe('pk = "note#0" AND sk < "m"');
  expect(plan({ id: { $between: ['', 'm'] } }).keyCondition).toBe('pk = "note#0" AND sk <= "m"');
});

test('order_by accepts id and indexed fields only', () => {
  expect(parseOrder(note, '-id')).toEqual({ field: 'id', descending: true });
  expect(parseOrder(note, ['rank'])).toEqual({ field: 'rank', descending: false });
  expect(() => parseOrder(note, 'done')).toThrow(/cannot order note by "done"/);
  expect(() => parseOrder(note, ['rank', 'id'])).toThrow(/one field/);
});
