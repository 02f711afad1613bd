import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { InvalidRecord } from '../../../../shared/store/errors';
import { ExpressionBuilder } from '../../../../shared/store/filter/expression';
import { compileChanges } from '../../../../shared/store/operators/compile';
import { parseValues } from '../../../../shared/store/operators/parse';
import { stockModel } from '../../../support/models';

const model = stockModel('stock');

/** The compiled update with its placeholders put back, to read as DynamoDB would. */
async function compiled(values: Record<string, unknown>) {
  const x = new ExpressionBuilder();
  const result = await compileChanges(parseValues(model, values), x, model);
  if (!result) return undefined;
  const readable = (text: string) =>
    text
      .replace(/#n\d+/g, (p) => x.names[p])
      .replace(/:v\d+/g, (p) => (x.values[p] instanceof NumberValue ? String(x.values[p]) : JSON.stringify(x.values[p])));
  return { set: result.set.map(readable), remove: result.remove.map(readable), condition: result.condition && readable(result.condition) };
}

test('$inc on a bounded int: one SET from 0 when missing, conditional on the stored value staying in bounds', async () => {
  expect(await compiled({ $inc: { stock: -1 } })).toEqual({
    set: ['d.stock = if_not_exists(d.stock, 0) + -1'],
    remove: [],
    // 0 - 1 is below the bound, so a missing stock cannot take it.
    condition: '(attribute_type(d.stock, "N") AND d.stock >= 1 AND d.stock <= 9007199254740992)',
  });
  expect((await compiled({ $inc: { stock: 2 } }))?.condition).toBe(
    '(attribute_not_exists(d.stock) OR (attribute_type(d.stock, "N") AND d.stock >= -2 AND d.stock <= 9007199254740989))',
  );
  expect((await compiled({ $inc: { n: 0.5 } }))?.condition).toBe('(attribute_not_exists(d.n) OR (attribute_type(d.n, "N")))');
});

test('$push on a bounded array appends, conditional on the size left', async () => {
  expect(await compiled({ $push: { tags: { $each: ['a', 'b'] } } })).toEqual({
    set: ['d.tags = list_append(if_not_exists(d.tags, []), ["a","b"])'],
    remove: [],
    condition: '(attribute_not_exists(d.tags) OR (attribute_type(d.tags, "L") AND size(d.tags) <= 1))',
  });
});

test('$set and $unset of fields valid one by one need no condition; a value the field refuses is an InvalidRecord', async () => {
  expect(await compiled({ title: 'x', code: 'abc', n: null })).toEqual({ set: ['d.title = "x"', 'd.code = "abc"'], remove: ['d.n'], condition: undefined });
  await expect(compiled({ code: 'ABC' })).rejects.toBeInstanceOf(InvalidRecord);
});

test.each([
  [{ $set: { 'meta.read': true } }, 'a nested path'],
  [{ $inc: { rank: 1 } }, 'an indexed field'],
  [{ $inc: { stock: 0.5 } }, 'a fraction on an int'],
  [{ $addToSet: { tags: 'a' } }, 'an operator with no expression'],
  [{ $min: { n: 1 } }, 'an operator with no expression'],
  [{ $inc: { label: 1 } }, 'a union'],
  [{ title: null }, 'a required field removed'],
  [{ $push: { tags: { $each: ['a', 'b', 'c', 'd'] } } }, 'more elements than the array takes'],
])('%j is not atomic (%s): read, validate and write', async (values, _why) => {
  expect(await compiled(values)).toBeUndefined();
});
