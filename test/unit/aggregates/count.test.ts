import * as z from 'zod';
import { equalityOf } from '../../../shared/aggregates/count';
import { defineModel } from '../../../shared/models/define';
import { parseFilter } from '../../../shared/store/filter/parse';

const model = defineModel({
  name: 'counted',
  description: 'a model whose filters count groups',
  schema: z.strictObject({ content: z.string(), n: z.number(), flag: z.boolean(), meta: z.object({ a: z.string() }).optional() }),
  aggregates: { by_content: { group_by: ['content', 'n'], count: true } },
});
const equal = (filters: unknown) => {
  const found = equalityOf(parseFilter(model, filters));
  return found && Object.fromEntries(found);
};

test('equality on data fields, bare or $eq, is the group it names', () => {
  expect(equal({ content: 'a', n: { $eq: 2 } })).toEqual({ content: 'a', n: 2 });
  expect(equal({ flag: true })).toEqual({ flag: true });
  expect(equal({})).toEqual({});
  // The same value twice (the caller's owner beside its own filter on it) is one condition.
  expect(equal({ $and: [{ content: 'a' }, { content: 'a' }] })).toEqual({ content: 'a' });
  // Two values of one field: no group holds both.
  expect(equal({ $and: [{ content: 'a' }, { content: 'b' }] })).toBeUndefined();
});

test('anything a counter cannot answer is no group: ranges, $in, $or, $not, id, system fields, nested paths, null', () => {
  for (const filters of [
    { n: { $gt: 1 } },
    { content: { $in: ['a'] } },
    { $or: [{ content: 'a' }, { content: 'b' }] },
    { $not: { content: 'a' } },
    { id: 'x' },
    { _version: 1 },
    { 'meta.a': 'x' },
    { content: null },
  ])
    expect(equal(filters)).toBeUndefined();
});
