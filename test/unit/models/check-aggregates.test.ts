import * as z from 'zod';
import { LIMITS } from '../../../shared/limits';
import { type AggregateDefinition, defineModel } from '../../../shared/models/define';

const schema = z.strictObject({
  content: z.string(),
  kind: z.enum(['a', 'b']).optional(),
  score: z.number().optional(),
  stars: z.int(),
  flag: z.boolean().optional(),
  mixed: z.union([z.string(), z.number()]).optional(),
  tags: z.array(z.string()).optional(),
  meta: z.object({ x: z.string() }).optional(),
  maybe: z.string().nullable().optional(),
  secret: z.number().optional(),
  free: z.unknown().optional(),
});
type Field = keyof z.infer<typeof schema>;

const declare = (aggregates: Record<string, AggregateDefinition<Field>>) =>
  defineModel({ name: 'counted', description: 'test', schema, fields: { secret: { visibleTo: { scope: 'admin' } } }, aggregates });

test('an aggregate groups by scalar fields (strings, numbers, booleans, enums, optional or not) and counts or sums number fields', () => {
  const model = declare({
    by_content: { group_by: ['content'], count: true, sum: ['score', 'stars'] },
    by_all: { group_by: ['kind', 'stars', 'flag', 'mixed'], count: true },
    total: { group_by: [], sum: ['score'] },
  });
  expect(Object.keys(model.aggregates)).toEqual(['by_content', 'by_all', 'total']);
  expect(defineModel({ name: 'plain', description: 'test', schema }).aggregates).toEqual({});
});

test.each<[string, Record<string, unknown>, RegExp]>([
  ['a name that is no field name', { 'by-content': { group_by: ['content'], count: true } }, /aggregate name "by-content" must match/],
  ['a name starting with a digit', { '1st': { group_by: [], count: true } }, /must match/],
  ['a group field the model lacks', { a: { group_by: ['nope'], count: true } }, /aggregates\.a\.group_by names nope, which is not a field/],
  ['an array', { a: { group_by: ['tags'], count: true } }, /group_by names tags, which must be a string, number or boolean field/],
  ['an object', { a: { group_by: ['meta'], count: true } }, /group_by names meta/],
  ['a nullable field (null would share the missing value group)', { a: { group_by: ['maybe'], count: true } }, /group_by names maybe/],
  ['a field of any value', { a: { group_by: ['free'], count: true } }, /group_by names free/],
  ['a field grouped twice', { a: { group_by: ['content', 'content'], count: true } }, /names content twice/],
  ['a sum of a string field', { a: { group_by: [], sum: ['content'] } }, /sum names content, which must be a number field/],
  ['a sum of a field that mixes numbers and strings', { a: { group_by: [], sum: ['mixed'] } }, /sum names mixed/],
  ['a field summed twice', { a: { group_by: [], sum: ['score', 'score'] } }, /sum names score twice/],
  ['a sum of a field the model lacks', { a: { group_by: [], sum: ['nope'] } }, /sum names nope, which is not a field/],
  ['nothing counted or summed', { a: { group_by: ['content'] } }, /aggregates\.a neither counts nor sums/],
  ['count: false and no sum', { a: { group_by: ['content'], count: false, sum: [] } }, /neither counts nor sums/],
  ['a min, which is not kept', { a: { group_by: [], count: true, min: ['score'] } }, /aggregates\.a declares min: an aggregate takes group_by, count and sum/],
  ['no group_by', { a: { count: true } }, /group_by must be a list/],
  ['a hidden field grouped', { a: { group_by: ['secret'], count: true } }, /group_by names secret, which is hidden from some callers/],
  ['a hidden field summed', { a: { group_by: [], sum: ['secret'] } }, /sum names secret, which is hidden from some callers/],
])('refused: %s', (_, aggregates, message) => {
  expect(() => declare(aggregates as Record<string, AggregateDefinition<Field>>)).toThrow(message);
  expect(() => declare(aggregates as Record<string, AggregateDefinition<Field>>)).toThrow(/^model counted: /);
});

test(`at most ${LIMITS.maxAggregates} aggregates, each grouping by at most ${LIMITS.maxGroupFields} fields`, () => {
  const many = Object.fromEntries(Array.from({ length: LIMITS.maxAggregates + 1 }, (_, i) => [`a${i}`, { group_by: [], count: true }]));
  expect(() => declare(many)).toThrow(`declares ${LIMITS.maxAggregates + 1} aggregates, at most ${LIMITS.maxAggregates}`);
  const wide = z.strictObject(Object.fromEntries(Array.from({ length: LIMITS.maxGroupFields + 1 }, (_, i) => [`f${i}`, z.string()])));
  expect(() => defineModel({ name: 'wide', description: 'test', schema: wide, aggregates: { a: { group_by: Object.keys(wide.shape), count: true } } })).toThrow(
    `aggregates.a.group_by lists ${LIMITS.maxGroupFields + 1} fields, at most ${LIMITS.maxGroupFields}`,
  );
});
