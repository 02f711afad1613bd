import * as z from 'zod';
import type { ApiError } from '../../../../shared/errors';
import { classify } from '../../../../shared/answer/respond';
import { defineModel } from '../../../../shared/models/define';
import { onebotEvent } from '../../../../shared/models/onebot';
import { namedId } from '../../../../shared/store/filter/ast';
import { parseFilter } from '../../../../shared/store/filter/parse';
import { noteModel } from '../../../support/models';

const note = noteModel();

/** The answer a refused filter gets (the parser throws store errors; respond.ts answers them). */
function catching(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

function refusal(filters: unknown): ApiError {
  try {
    parseFilter(note, filters);
  } catch (error) {
    return classify(error);
  }
  throw new Error('expected the filter to be refused');
}

describe('refusing filters', () => {
  test('unknown fields are 400 unknown_field with the path and the available fields', () => {
    const error = refusal({ $or: [{ title: 'a' }, { nope: 1 }] });
    expect(error.code).toBe('unknown_field');
    expect(error.extra.path).toBe('filters.$or.1.nope');
    expect(error.extra.available).toEqual(expect.arrayContaining(['id', 'title', 'rank', '_version']));
  });

  test('unknown nested properties of a strict object are unknown_field', () => {
    expect(refusal({ 'meta.nope': 1 }).code).toBe('unknown_field');
    expect(refusal({ 'id.x': 1 }).code).toBe('unknown_field');
  });

  // What zod 4's toJSONSchema (io: output) writes for each kind of object decides which names a level takes.
  test.each([
    ['z.object', z.object({ a: z.number() }), ['a'], ['b']],
    ['z.strictObject', z.strictObject({ a: z.number() }), ['a'], ['b']],
    ['z.object().nullable()', z.object({ a: z.number() }).nullable(), ['a'], ['b']],
    ['a union of objects', z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]), ['a', 'b'], ['c']],
    ['a discriminated union', z.discriminatedUnion('t', [z.object({ t: z.literal('x'), a: z.number() }), z.object({ t: z.literal('y') })]), ['t', 'a'], ['b']],
    ['a record with enum keys', z.record(z.enum(['a', 'b']), z.number()), ['a', 'b'], ['c']],
    ['a record with a key pattern', z.record(z.string().regex(/^x/), z.number()), ['x1'], ['y']],
    ['z.record', z.record(z.string(), z.number()), ['anything'], []],
    ['z.looseObject', z.looseObject({ a: z.number() }), ['a', 'anything'], []],
    ['a catchall', z.object({ a: z.number() }).catchall(z.string()), ['a', 'anything'], []],
    ['z.unknown', z.unknown(), ['anything'], []],
    ['an intersection zod merges', z.intersection(z.object({ a: z.number() }), z.object({ b: z.number() })), ['a', 'b'], ['c']],
    ['an intersection with a record (allOf)', z.intersection(z.object({ a: z.number() }), z.record(z.string(), z.number())), ['a', 'anything'], []],
    [
      'an intersection with a union',
      z.intersection(z.strictObject({ a: z.number() }), z.union([z.strictObject({ b: z.number() }), z.strictObject({ c: z.number() })])),
      ['a', 'b', 'c'],
      ['d'],
    ],
  ])('names inside %s', (_, schema, known, unknown) => {
    const model = defineModel({ name: 'shapes', description: 'test', schema: z.strictObject({ f: schema.optional() }) });
    for (const name of known) expect(() => parseFilter(model, { [`f.${name}`]: { $exists: true } })).not.toThrow();
    for (const name of unknown) expect(classify(catching(() => parseFilter(model, { [`f.${name}`]: { $exists: false } }))).code).toBe('unknown_field');
  });

  test('a recursive schema (z.lazy) is followed through its $ref', () => {
    type Tree = { v?: number; kids?: Tree[]; next?: Tree };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ v: z.number().optional(), kids: z.array(tree).optional(), next: tree.optional() }));
    const model = defineModel({ name: 'trees', description: 'test', schema: z.strictObject({ t: tree.optional() }) });
    expect(() => parseFilter(model, { 't.next.next.v': 1, 't.kids': { $contains: { v: 1, kids: [{ v: 2 }] } } })).not.toThrow();
    expect(classify(catching(() => parseFilter(model, { 't.next.nope': 1 }))).code).toBe('unknown_field');
    expect(classify(catching(() => parseFilter(model, { 't.next.v': 'one' }))).code).toBe('invalid_filter');
    expect(classify(catching(() => parseFilter(model, { 't.kids': { $contains: { v: 1, nope: 2 } } }))).code).toBe('invalid_filter');
  });

  test.each([
    [{ rank: { $foo: 1 } }, 'filters.rank.$foo', /unknown operator/],
    [{ $nope: [] }, 'filters.$nope', /unknown operator/],
    [{ rank: 'high' }, 'filters.rank', /holds a number, not a string/],
    [{ title: { $gt: 5 } }, 'filters.title.$gt', /holds a string, not a number/],
    [{ rank: { $in: 5 } }, 'filters.rank.$in', /takes an array/],
    [{ rank: [] }, 'filters.rank', /at least one value/],
    [{ rank: { $between: [5, 1] } }, 'filters.rank.$between', /low <= high/],
    [{ rank: { $between: [1] } }, 'filters.rank.$between', /\[low, high\]/],
    [{ rank: { $exists: 'yes' } }, 'filters.rank.$exists', /true or false/],
    [{ rank: { $begins_with: '1' } }, 'filters.rank.$begins_with', /holds a number/],
    [{ $or: [] }, 'filters.$or', /non-empty array/],
    [{ $and: [1] }, 'filters.$and.0', /JSON object/],
    [{ rank: { $gt: 1, plain: 2 } }, 'filters.rank', /mixes operators/],
    [{ rank: { $in: [1, null] } }, 'filters.rank.$in.1', /null is only allowed/],
    [{ title: { $gt: true } }, 'filters.title.$gt', /number or a string/],
  ])('%j is refused at %s', (filters, path, message) => {
    const error = refusal(filters);
    expect(error.code).toBe('invalid_filter');
    expect(error.status).toBe(400);
    expect(error.extra.path).toBe(path);
    expect(error.message).toMatch(message);
  });

  test('depth, number of conditions, list length and string length are bounded', () => {
    let deep: Record<string, unknown> = { title: 'a' };
    for (let i = 0; i < 10; i++) deep = { $not: deep };
    expect(refusal(deep).message).toMatch(/deeper than/);
    const many = { $or: Array.from({ length: 70 }, (_, i) => ({ rank: i })) };
    expect(refusal(many).message).toMatch(/more than 64 conditions/);
    expect(refusal({ rank: Array.from({ length: 101 }, (_, i) => i) }).message).toMatch(/at most 100 values/);
    expect(refusal({ title: 'x'.repeat(1025) }).message).toMatch(/at most 1024 characters/);
  });

  test('a filter that is not an object is refused', () => {
    expect(refusal([1]).code).toBe('invalid_filter');
    expect(refusal('x').code).toBe('invalid_filter');
  });
});

test('$between with a number and a string is refused, not sent to DynamoDB (which refuses it)', () => {
  const error = (() => {
    try {
      parseFilter(onebotEvent, { group_id: { $between: [0, 'b'] } });
    } catch (e) {
      return classify(e);
    }
  })();
  expect(error?.code).toBe('invalid_filter');
  expect(error?.message).toMatch(/two numbers or two strings/);
});

describe('namedId: the one id a filter names by equality at its top level', () => {
  const note = noteModel('named_id_note');
  test.each([
    [{ id: 'a' }, 'a'],
    [{ id: { $eq: 'a' } }, 'a'],
    [{ id: 'a', title: 'x' }, 'a'],
    [{ $and: [{ id: 'a' }, { title: 'x' }] }, 'a'],
    [{ id: { $in: ['a', 'b'] } }, undefined],
    [{ $or: [{ id: 'a' }, { id: 'b' }] }, undefined],
    [{ $not: { id: 'a' } }, undefined],
    [{ title: 'a' }, undefined],
    [{}, undefined],
  ])('%j names %j', (filters, id) => {
    expect(namedId(parseFilter(note, filters))).toBe(id);
  });
});
