import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { InvalidRecord } from '../../../../shared/store/errors';
import { applyChanges } from '../../../../shared/store/operators/apply';
import { parseValues } from '../../../../shared/store/operators/parse';
import { stockModel } from '../../../support/models';

const model = stockModel('stock');
const apply = (data: Record<string, unknown>, values: Record<string, unknown>, inserting = false) =>
  applyChanges(data, parseValues(model, values, { upsert: true }), { inserting });

test('$set into a nested path keeps the object’s other fields; the shorthand replaces the object whole', () => {
  const data = { title: 't', meta: { source: 's', stars: 3 } };
  expect(apply(data, { $set: { 'meta.read': true } })).toEqual({ title: 't', meta: { source: 's', stars: 3, read: true } });
  expect(apply(data, { meta: { read: true } })).toEqual({ title: 't', meta: { read: true } });
  expect(data).toEqual({ title: 't', meta: { source: 's', stars: 3 } });
  expect(apply({ title: 't' }, { $set: { 'meta.read': true } })).toEqual({ title: 't', meta: { read: true } });
});

test('$unset and null remove; removing what is not there changes nothing', () => {
  expect(apply({ title: 't', n: 1, meta: { read: true } }, { n: null, $unset: { 'meta.read': '' } })).toEqual({ title: 't', meta: {} });
  expect(apply({ title: 't' }, { $unset: { 'meta.read': 1, n: 1 } })).toEqual({ title: 't' });
});

test('$inc adds exactly and starts a missing path from 0', () => {
  expect(apply({ n: 0.1 }, { $inc: { n: 0.2 } })).toEqual({ n: 0.3 });
  expect(apply({ n: NumberValue.from('18446744073709551616') }, { $inc: { n: 1 } }).n).toEqual(NumberValue.from('18446744073709551617'));
  expect(apply({}, { $inc: { n: -2, 'meta.stars': 1 } })).toEqual({ n: -2, meta: { stars: 1 } });
});

test('$min and $max keep the smaller or larger, numbers by value and strings by UTF-8 bytes', () => {
  expect(apply({ n: 5, rank: 5 }, { $min: { n: 3 }, $max: { rank: 3 } })).toEqual({ n: 3, rank: 5 });
  expect(apply({ label: 'b' }, { $max: { label: 'a' } })).toEqual({ label: 'b' });
  expect(apply({}, { $min: { n: 7 } })).toEqual({ n: 7 });
});

test('$push appends, $addToSet adds what is absent, $pull removes what equals the operand', () => {
  expect(apply({ tags: ['a'] }, { $push: { tags: 'a' } })).toEqual({ tags: ['a', 'a'] });
  expect(apply({}, { $push: { tags: { $each: ['a', 'b'] } } })).toEqual({ tags: ['a', 'b'] });
  expect(apply({ tags: ['a'] }, { $addToSet: { tags: { $each: ['a', 'b', 'b'] } } })).toEqual({ tags: ['a', 'b'] });
  expect(apply({ tags: ['a', 'b', 'a'] }, { $pull: { tags: 'a' } })).toEqual({ tags: ['b'] });
  expect(apply({}, { $pull: { tags: 'a' } })).toEqual({});
});

test('$setOnInsert counts only when inserting', () => {
  expect(apply({ title: 't' }, { $setOnInsert: { n: 1 }, $inc: { stock: 1 } })).toEqual({ title: 't', stock: 1 });
  expect(apply({}, { $setOnInsert: { title: 'new' }, $inc: { stock: 1 } }, true)).toEqual({ title: 'new', stock: 1 });
});

test('a stored value the operator cannot change is an InvalidRecord naming the path', () => {
  expect(() => apply({ label: 'x' }, { $inc: { label: 1 } })).toThrow(InvalidRecord);
  expect(() => apply({ label: 'x' }, { $inc: { label: 1 } })).toThrow('values.label: label holds a string');
});
