import { classify } from '../../../../shared/answer/respond';
import { parseValues } from '../../../../shared/store/operators/parse';
import { stockModel } from '../../../support/models';

const model = stockModel('stock');

function refusal(values: Record<string, unknown>, upsert = false) {
  try {
    parseValues(model, values, { upsert });
  } catch (error) {
    const answer = classify(error);
    return { status: answer.status, details: answer.extra.details as Array<{ path: string; message: string }> | undefined };
  }
  throw new Error('expected the values to be refused');
}

test('plain keys are $set shorthand, null removes, operators keep their paths', () => {
  expect(parseValues(model, { title: 'a', n: null, $inc: { stock: 1 }, $set: { 'meta.read': true } }).list).toEqual([
    { op: 'set', path: ['title'], value: 'a' },
    { op: 'unset', path: ['n'] },
    { op: 'inc', path: ['stock'], by: 1 },
    { op: 'set', path: ['meta', 'read'], value: true },
  ]);
  expect(parseValues(model, { $push: { tags: { $each: ['a', 'b'] } } }).list[0]).toEqual({
    op: 'push',
    path: ['tags'],
    each: ['a', 'b'],
  });
});

test('a field the model no longer declares can be removed with null', () => {
  expect(parseValues(model, { gone: null }).list).toEqual([{ op: 'unset', path: ['gone'] }]);
});

test.each([
  [{ $inc: { title: 1 } }, 'values.$inc.title', /holds string, not a number/],
  [{ $inc: { stock: 'x' } }, 'values.$inc.stock', /takes a number/],
  [{ $push: { title: 'x' } }, 'values.$push.title', /holds string, not an array/],
  [{ $push: { tags: 1 } }, 'values.$push.tags.0', /an element of tags cannot be a number/],
  [{ $pull: { n: 1 } }, 'values.$pull.n', /holds number/],
  [{ $min: { tags: 1 } }, 'values.$min.tags', /holds array/],
  [{ $inc: { 'meta.nope': 1 } }, 'values.$inc.meta.nope', /no property nope inside meta/],
  [{ $set: { 'nope.x': 1 } }, 'values.$set.nope.x', /has no field nope/],
  [{ $rename: { n: 'm' } }, 'values.$rename', /unknown operator \$rename/],
  [{ $set: { _version: 3 } }, 'values.$set._version', /managed by the service/],
  [{ _version: 3 }, 'values._version', /managed by the service/],
  [{ 'meta.read': true }, 'values.meta.read', /needs an operator/],
  [{ $inc: 1 }, 'values.$inc', /takes an object/],
  [{ $setOnInsert: { n: 1 } }, 'values.$setOnInsert', /only applies with "upsert": true/],
  [{ $set: { meta: {} }, $inc: { 'meta.stars': 1 } }, 'values.$inc.meta.stars', /change a path once/],
  [{ n: 1, $inc: { n: 1 } }, 'values.$inc.n', /change a path once/],
  [{}, 'values', /empty/],
])('%j is a 400 naming %s', (values, path, message) => {
  const { status, details } = refusal(values);
  expect(status).toBe(400);
  expect(details?.[0]).toEqual({ path, message: expect.stringMatching(message) });
});

test('$setOnInsert is taken with upsert', () => {
  expect(parseValues(model, { $setOnInsert: { title: 'x' } }, { upsert: true }).list).toEqual([{ op: 'setOnInsert', path: ['title'], value: 'x' }]);
});

test('a union field takes the operators of each of its kinds', () => {
  expect(parseValues(model, { $inc: { label: 1 } }).list).toHaveLength(1);
  expect(parseValues(model, { $max: { label: 'b' } }).list).toHaveLength(1);
});
