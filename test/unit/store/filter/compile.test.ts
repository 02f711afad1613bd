import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { reaction } from '../../../../shared/models/reaction';
import { compileFilter } from '../../../../shared/store/filter/compile';
import { ExpressionBuilder } from '../../../../shared/store/filter/expression';
import { parseFilter } from '../../../../shared/store/filter/parse';
import { noteModel } from '../../../support/models';

const note = noteModel();

function compiled(filters: unknown) {
  const x = new ExpressionBuilder();
  const text = compileFilter(parseFilter(note, filters), x);
  // Resolve placeholders so assertions read like the expression DynamoDB evaluates.
  const readable = text
    ?.replace(/#n\d+/g, (n) => x.names[n])
    .replace(/:v\d+/g, (v) => JSON.stringify(x.values[v] instanceof NumberValue ? String(x.values[v]) : x.values[v]));
  return { text, readable, x };
}

describe('compiling filters', () => {
  test('an empty filter matches everything and compiles to nothing', () => {
    expect(compiled({}).text).toBeUndefined();
  });

  test('bare values, null and arrays', () => {
    expect(compiled({ title: 'a' }).readable).toBe('d.title = "a"');
    expect(compiled({ rank: null }).readable).toBe('(attribute_not_exists(d.rank) OR attribute_type(d.rank, "NULL"))');
    expect(compiled({ title: ['a', 'b'] }).readable).toBe('d.title IN ("a", "b")');
  });

  test('keys at one level are ANDed; operators in one object too', () => {
    expect(compiled({ title: 'a', rank: { $gt: 1, $lte: 5 } }).readable).toBe('(d.title = "a" AND (d.rank > 1 AND d.rank <= 5))');
  });

  test('$ne and $nin keep records whose field is missing or null', () => {
    expect(compiled({ title: { $ne: 'a' } }).readable).toBe('(attribute_not_exists(d.title) OR attribute_type(d.title, "NULL") OR d.title <> "a")');
    expect(compiled({ rank: { $nin: [1, 2] } }).readable).toBe('(attribute_not_exists(d.rank) OR attribute_type(d.rank, "NULL") OR NOT (d.rank IN (1, 2)))');
  });

  test('$exists, $ne null, $between, $begins_with, $contains', () => {
    expect(compiled({ rank: { $exists: true } }).readable).toBe('(NOT (attribute_not_exists(d.rank) OR attribute_type(d.rank, "NULL")))');
    expect(compiled({ rank: { $ne: null } }).readable).toBe(compiled({ rank: { $exists: true } }).readable);
    expect(compiled({ rank: { $between: [1, 3] } }).readable).toBe('d.rank BETWEEN 1 AND 3');
    expect(compiled({ title: { $begins_with: 'ab' } }).readable).toBe('begins_with(d.title, "ab")');
    expect(compiled({ title: { $contains: 'b' } }).readable).toBe('contains(d.title, "b")');
    expect(compiled({ tags: { $contains: 'x' } }).readable).toBe('contains(d.tags, "x")');
  });

  test('$and, $or, $not and field-level $not', () => {
    expect(compiled({ $or: [{ title: 'a' }, { rank: 1 }] }).readable).toBe('(d.title = "a" OR d.rank = 1)');
    expect(compiled({ $and: [{ title: 'a' }, { $not: { rank: 1 } }] }).readable).toBe('(d.title = "a" AND (NOT d.rank = 1))');
    expect(compiled({ title: { $not: { $begins_with: 'x' } } }).readable).toBe('(NOT begins_with(d.title, "x"))');
  });

  test('$not of a match-all matches nothing, through an attribute every record has and no key attribute', () => {
    expect(compiled({ $not: {} }).readable).toBe('attribute_not_exists(id)');
  });

  test('an $or with a match-all branch matches everything', () => {
    expect(compiled({ $or: [{}, { title: 'a' }] }).text).toBeUndefined();
  });

  test('dotted paths reach nested fields; system fields are top-level attributes', () => {
    expect(compiled({ 'meta.author.login': 'ann' }).readable).toBe('d.meta.author.login = "ann"');
    expect(compiled({ id: 'x', _version: { $gte: 2 } }).readable).toBe('(id = "x" AND _version >= 2)');
  });

  test('user input never becomes expression text', () => {
    const { text, x } = compiled({ title: ') OR attribute_exists(pk) OR (#a = :v' });
    expect(text).toMatch(/^#n\d+\.#n\d+ = :v\d+$/);
    expect(Object.values(x.values)).toContain(') OR attribute_exists(pk) OR (#a = :v');
  });

  test('numbers past 2^53 stay exact in values', () => {
    const big = NumberValue.from('18446744073709551617');
    const x = new ExpressionBuilder();
    compileFilter(parseFilter(reaction, { user_id: big }), x);
    expect(String(Object.values(x.values)[0])).toBe('18446744073709551617');
  });
});
