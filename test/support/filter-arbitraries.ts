import fc from 'fast-check';
import type { Model } from '../../shared/models/define';
import { StoreError } from '../../shared/store/errors';
import type { FilterNode } from '../../shared/store/filter/ast';
import { parseFilter } from '../../shared/store/filter/parse';

/**
 * Records and filters for fuzzModel (test/support/models.ts). Values come mostly from small
 * pools shared by records and filters, so that filters do match: strings around the index
 * key's 200-byte prefix, multi-byte characters whose UTF-16 and UTF-8 orders differ, empty
 * strings, false, zero, mixed kinds, arrays and nested objects.
 */
const q = (n: number) => 'q'.repeat(n);
export const STRINGS = [
  '',
  'a',
  'ab',
  'b',
  'B',
  'é',
  '～',
  '😀',
  'a😀',
  'x y',
  '\u0000',
  q(199),
  q(200),
  `${q(199)}é`,
  `${q(199)}b`,
  q(250),
  `${q(195)}😀z`,
  `${q(197)}～`,
];
export const NUMBERS = [0, -1, 1, 1.5, 7, -0.25, 2 ** 52, 123456789];

const string = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...STRINGS) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) });
const number = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NUMBERS) }, { weight: 1, arbitrary: fc.integer({ min: -50, max: 50 }) });
const scalar = fc.oneof(string, number, fc.boolean());
const tags = fc.array(fc.constantFrom('a', 'b', '', 'é'), { maxLength: 3 });
const KEYS = ['a', 'b', 'c'];

/** Free-form JSON three levels deep: what `obj` holds and what its paths are compared with. */
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(scalar, { maxLength: 2 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 2 }),
  ),
})).value;

export const recordData = fc.record(
  { s: string, n: number, mix: fc.oneof(string, number), tags, flag: fc.boolean(), obj: fc.dictionary(fc.constantFrom(...KEYS), json, { maxKeys: 3 }) },
  { requiredKeys: ['s'] },
);

/** The records of the report, as fuzzModel data, beside the generated ones. */
export const FIXED_RECORDS = [
  { id: 't1-200', data: { s: q(200) } },
  { id: 't1-250', data: { s: q(250) } },
  { id: 't1-199e', data: { s: `${q(199)}é` } },
  { id: 't4-～', data: { s: 'x', mix: '～' } },
  { id: 't5-empty', data: { s: '', mix: 7, flag: false, tags: ['a', 'b'], obj: { b: { c: { d: 'Alice' } }, a: ['a', 'b'] } } },
  { id: 't6-abc', data: { s: 'abc', mix: 'abc', obj: { a: { c: 1, b: 2 } } } },
];

const ids = fc.constantFrom(...FIXED_RECORDS.map((r) => r.id), 't4', 't4-😀', 'r', 'z');

/** For each path a filter may name, the values worth comparing it with. */
const PATHS: Array<[string, fc.Arbitrary<unknown>]> = [
  ['s', string],
  ['n', number],
  ['mix', fc.oneof(string, number)],
  ['tags', fc.oneof(string, tags)],
  ['flag', fc.boolean()],
  ['id', ids],
  ['_version', fc.integer({ min: 1, max: 3 })],
  ['obj.a', json],
  ['obj.b', json],
  ['obj.b.c', json],
  ['obj.b.c.d', scalar],
];

// Numbers join in so that a path holding neither kind (flag) still yields an operand.
const ordered = (value: fc.Arbitrary<unknown>) => fc.oneof(value, number).filter((v) => typeof v === 'string' || typeof v === 'number');

/**
 * Every form a condition on `path` takes, with operands from `value`: the value itself, null, a
 * list, each operator, and `$not` of an operator object. `ordered` gives the range bounds,
 * `prefix` the `$begins_with` strings and `element` the `$contains` operands.
 */
export function conditionOn(
  path: string,
  value: fc.Arbitrary<unknown>,
  operands: { ordered: fc.Arbitrary<unknown>; prefix: fc.Arbitrary<string>; element: fc.Arbitrary<unknown> },
): fc.Arbitrary<Record<string, unknown>> {
  const list = fc.array(value, { minLength: 1, maxLength: 4 });
  const op = fc.oneof(
    value,
    fc.constant(null),
    list,
    value.map((v) => ({ $eq: v })),
    value.map((v) => ({ $ne: v })),
    fc.constant({ $ne: null }),
    fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), operands.ordered).map(([o, v]) => ({ [o]: v })),
    // Two bounds, in either order: the parser refuses low > high.
    fc.tuple(operands.ordered, operands.ordered).map(([a, b]) => ({ $between: [a, b] })),
    list.map((v) => ({ $in: v })),
    list.map((v) => ({ $nin: v })),
    fc.boolean().map((v) => ({ $exists: v })),
    operands.prefix.map((v) => ({ $begins_with: v })),
    operands.element.map((v) => ({ $contains: v })),
  );
  return fc
    .oneof(
      { weight: 5, arbitrary: op },
      {
        weight: 1,
        arbitrary: op.map((o) => (o !== null && typeof o === 'object' && !Array.isArray(o) && Object.keys(o)[0]?.startsWith('$') ? { $not: o } : o)),
      },
    )
    .map((o) => ({ [path]: o }));
}

const condition = ([path, value]: [string, fc.Arbitrary<unknown>]) =>
  conditionOn(path, value, { ordered: ordered(value), prefix: string.map((v) => v.slice(0, 210)), element: fc.oneof(string, value) });

/** Filters up to four levels deep with $and/$or/$not and several keys per object. */
export const filter: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    // A lone condition is what reaches key-only plans: index equality and ranges, id reads.
    { weight: 4, arbitrary: fc.constantFrom(...PATHS).chain(condition) },
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((items) => ({ $and: items })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((items) => ({ $or: items })),
    tie('node').map((item) => ({ $not: item })),
    fc.tuple(fc.constantFrom(...PATHS).chain(condition), fc.constantFrom(...PATHS).chain(condition)).map(([a, b]) => ({ ...a, ...b })),
  ),
})).node;

export const orderBy = fc.constantFrom('id', '-id', 's', '-s', 'n', '-n', 'mix', '-mix');

/** A generated filter parsed, or undefined where the parser refuses it (a refusal is the store's to answer, not a case to compare). */
export function parsedOrRefused(model: Model, filters: unknown): FilterNode | undefined {
  try {
    return parseFilter(model, filters);
  } catch (error) {
    if (error instanceof StoreError) return undefined;
    throw error;
  }
}
