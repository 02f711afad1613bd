import { createHash } from 'node:crypto';
import { stringifyExactJson, toExactNumber } from '../../../../shared/json/exact-json';
import { queryFingerprint } from '../../../../shared/store/cursor/cursor';
import { canonicalFilter } from '../../../../shared/store/filter/canonical';

/** The fingerprint as cursors issued before 2026-11-27 carry it: the request as spelt. */
const spelt = (filters: unknown, orderBy: unknown) =>
  createHash('sha256')
    .update(stringifyExactJson({ filters: filters ?? {}, orderBy: orderBy ?? null }))
    .digest('base64url')
    .slice(0, 22);

test.each<[string, unknown, unknown]>([
  ['keys at the top in another order', { a: 1, b: 2 }, { b: 2, a: 1 }],
  ['operators in another order', { n: { $gt: 1, $lt: 5 } }, { n: { $lt: 5, $gt: 1 } }],
  ['$eq of a value for the value', { n: { $eq: 1 } }, { n: 1 }],
  ['$eq of null for null', { n: { $eq: null } }, { n: null }],
  ['$eq of a plain object, keys in another order', { meta: { $eq: { b: 1, a: 2 } } }, { meta: { a: 2, b: 1 } }],
  ['an exact number written longer', { n: toExactNumber('1.0') }, { n: 1 }],
  [
    'inside $and, $or, $not and a field $not',
    { $or: [{ a: 1, b: { $eq: 2 } }], $not: { c: { $not: { $eq: 1, $gt: 0 } } } },
    { $not: { c: { $not: { $gt: 0, $eq: 1 } } }, $or: [{ b: 2, a: 1 }] },
  ],
])('%s: one fingerprint', (_, a, b) => {
  expect(queryFingerprint(a, undefined)).toBe(queryFingerprint(b, undefined));
});

test.each<[string, unknown, unknown]>([
  ['$eq of a list (whole array) and a bare list ($in)', { tags: { $eq: ['a'] } }, { tags: ['a'] }],
  ['$eq of an operator object and the operators', { o: { $eq: { $gt: 1 } } }, { o: { $gt: 1 } }],
  ['$in of one value and the value', { n: { $in: [1] } }, { n: 1 }],
  ['another value', { n: 1 }, { n: 2 }],
  ['lists in another order', { tags: { $eq: ['a', 'b'] } }, { tags: { $eq: ['b', 'a'] } }],
])('%s: two fingerprints', (_, a, b) => {
  expect(queryFingerprint(a, undefined)).not.toBe(queryFingerprint(b, undefined));
});

test("an update's values in another key order are the same request; other values are not", () => {
  expect(queryFingerprint({ n: 1 }, ['update', { a: 1, b: 2 }])).toBe(queryFingerprint({ n: 1 }, ['update', { b: 2, a: 1 }]));
  expect(queryFingerprint({ n: 1 }, ['update', { a: 1 }])).not.toBe(queryFingerprint({ n: 1 }, ['update', { a: 2 }]));
});

test('a request already in the one spelling hashes as before, so its cursors issued before still resume', () => {
  for (const [filters, orderBy] of [
    [undefined, undefined],
    [{ a: 1, b: { $gt: 2, $lt: 9 } }, 'b'],
    [{ $or: [{ a: 1 }, { a: 2 }] }, ['update', { a: 3, b: null }]],
    [{ id: 'x' }, ['delete']],
  ] as const) {
    expect(canonicalFilter(filters ?? {})).toEqual(filters ?? {});
    expect(queryFingerprint(filters, orderBy)).toBe(spelt(filters, orderBy));
  }
});
