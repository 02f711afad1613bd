import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import type { Model } from '../../../shared/models/define';
import { reaction } from '../../../shared/models/reaction';
import { filterComponents, filterSchemaName } from '../../../shared/openapi/filter-schema';
import { OPERATORS, parseFilter } from '../../../shared/store/filter/parse';
import { filter } from '../../support/filter-arbitraries';
import { fuzzed } from '../../support/fuzz';
import { fuzzModel, queryModel } from '../../support/models';

/**
 * The document's filter schema against the parser it describes: every filter the parser takes
 * validates (a generated client never refuses a filter the service answers), and what the
 * schema is there to catch before sending, an unknown field or an operator the field's kind has
 * not, the parser refuses too.
 */
const fuzz = fuzzModel('fuzz_schema', 1);
const query = queryModel('query_schema', 1);

function validatorFor(model: Model) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema({ $id: 'doc', components: { schemas: filterComponents([model]) } });
  return ajv.compile({ $ref: `doc#/components/schemas/${filterSchemaName(model)}` });
}

const parses = (model: Model, value: unknown) => {
  try {
    parseFilter(model, value);
    return true;
  } catch {
    return false;
  }
};

test('every filter the parser takes validates against the schema', () => {
  const valid = validatorFor(fuzz);
  let taken = 0;
  fc.assert(
    fc.property(filter, (value) => {
      if (!parses(fuzz, value)) return;
      taken += 1;
      expect([value, valid(value) ? [] : valid.errors]).toEqual([value, []]);
    }),
    fuzzed(300, 41),
  );
  // The property is not vacuous: most generated filters are valid ones.
  expect(taken).toBeGreaterThan(150);
});

test.each<[string, unknown]>([
  ['dotted paths into object fields', { 'meta.inner.b': 'x', 'free.any.depth': 1, 'loose.z': true }],
  ['$contains of an element of an array of objects', { items: { $contains: { k: 'a' } } }],
  ['a whole array, and a list of them', { tags: { $eq: ['a'] }, arr: [[1, 'a', true], []] }],
  ['null as the whole condition and with $ne', { nmeta: null, s: { $ne: null } }],
  ['$not inside a field, $between on a number', { n: { $not: { $between: [1, 2] } } }],
])('the query model: %s validates and parses', (_what, value) => {
  const valid = validatorFor(query);
  expect(parses(query, value)).toBe(true);
  expect(valid(value) ? [] : valid.errors).toEqual([]);
});

test.each<[string, unknown]>([
  ['an unknown field', { nope: 1 }],
  ['an unknown field inside $or', { $or: [{ content: '+1' }, { contnet: '+1' }] }],
  ['a dotted path on a string field', { 'content.length': 1 }],
  ['$begins_with on a number field', { user_id: { $begins_with: '1' } }],
  ['$contains on a number field', { user_id: { $contains: 1 } }],
  ['a string for a number', { _version: { $gte: '1' } }],
  ['an unknown operator', { content: { $regex: 'a' } }],
  ['an empty $and', { $and: [] }],
])('reaction: %s is refused by the schema and by the parser', (_what, value) => {
  expect(validatorFor(reaction)(value)).toBe(false);
  expect(parses(reaction, value)).toBe(false);
});

test("the schema's operators are the parser's, each shown for a field that may hold anything", () => {
  const components = filterComponents([query]);
  const shown = new Set(Object.entries(components).flatMap(([name, schema]) => (name.endsWith('_operators') ? Object.keys(schema.properties as object) : [])));
  expect([...shown].sort()).toEqual([...Object.keys(OPERATORS), '$not'].sort());
  expect(Object.keys(components.filter_any_operators.properties as object).sort()).toEqual([...Object.keys(OPERATORS), '$not'].sort());
});
