import { LIMITS } from '../limits';
import * as zm from '../zod';
import { type FieldSchema, type ModelOptions, type ModelSchema, typesOf } from './model';

/** What an aggregate's name can be: a field's name, as it appears in requests and answers beside them. */
const AGGREGATE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,254}$/;
/** What an aggregate declares; anything else (a `min` or `max`, a typo) is refused rather than ignored. */
const DEFINITION_KEYS = new Set(['group_by', 'count', 'sum']);
/** A group value is one of these (./keys.ts groupPart): a null would share the group of a missing value, so a nullable field is refused. */
const GROUPABLE = new Set(['string', 'number', 'integer', 'boolean']);
const SUMMABLE = new Set(['number', 'integer']);

/**
 * The aggregates a model declares, checked as it is declared: names, at most LIMITS.maxAggregates,
 * group fields that are scalar fields of the model (at most LIMITS.maxGroupFields, none twice),
 * sums of number fields, something counted or summed in each. A field a field rule hides from some
 * callers may be neither grouped nor summed: its values would reach them through the counts.
 * Throws `refuse(message)`.
 */
export function checkAggregates(options: ModelOptions<ModelSchema, string>, refuse: (message: string) => Error): void {
  const aggregates = Object.entries(options.aggregates ?? {});
  if (aggregates.length > LIMITS.maxAggregates) throw refuse(`declares ${aggregates.length} aggregates, at most ${LIMITS.maxAggregates}`);
  const typesOfField = (field: string): string[] => typesOf(zm.toJSONSchema(options.schema.shape[field], { io: 'input' }) as FieldSchema);
  for (const [name, definition] of aggregates) {
    const at = `aggregates.${name}`;
    if (!AGGREGATE_NAME.test(name)) throw refuse(`aggregate name ${JSON.stringify(name)} must match ${AGGREGATE_NAME}`);
    const unknown = Object.keys(definition).filter((key) => !DEFINITION_KEYS.has(key));
    if (unknown.length > 0) throw refuse(`${at} declares ${unknown.join(', ')}: an aggregate takes group_by, count and sum`);
    const { group_by: groupBy, count, sum = [] } = definition;
    if (!Array.isArray(groupBy)) throw refuse(`${at}.group_by must be a list of fields ([] for one group of every record)`);
    if (count !== undefined && typeof count !== 'boolean') throw refuse(`${at}.count must be true or false`);
    if (!Array.isArray(sum)) throw refuse(`${at}.sum must be a list of number fields`);
    if (count !== true && sum.length === 0) throw refuse(`${at} neither counts nor sums: give it count: true or sum`);
    if (groupBy.length > LIMITS.maxGroupFields) throw refuse(`${at}.group_by lists ${groupBy.length} fields, at most ${LIMITS.maxGroupFields}`);
    for (const [list, fields, allowed, kinds] of [
      ['group_by', groupBy, GROUPABLE, 'a string, number or boolean field'],
      ['sum', sum, SUMMABLE, 'a number field'],
    ] as const) {
      for (const field of fields) {
        if (!Object.hasOwn(options.schema.shape, field)) throw refuse(`${at}.${list} names ${field}, which is not a field of the model`);
        if (fields.indexOf(field) !== fields.lastIndexOf(field)) throw refuse(`${at}.${list} names ${field} twice`);
        const types = typesOfField(field);
        if (types.length === 0 || !types.every((t) => allowed.has(t))) throw refuse(`${at}.${list} names ${field}, which must be ${kinds}`);
        if (options.fields?.[field]?.visibleTo)
          throw refuse(`${at}.${list} names ${field}, which is hidden from some callers: its values would reach them through the aggregate`);
      }
    }
  }
}
