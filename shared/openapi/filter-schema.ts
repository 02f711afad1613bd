import { LIMITS } from '../limits';
import { SYSTEM_FIELDS, type FieldSchema, type Model } from '../models/model';
import { alternatives, elementSchemas, kindsOf } from '../store/filter/parse';
import type { JsonSchema } from './json-schema';

/**
 * The filter language (shared/store/filter/parse.ts) as JSON Schema, per model: its field names
 * as properties and nothing else (additionalProperties false), so a generated client refuses a
 * misspelt field as the service does, and each field's conditions typed by what the field holds.
 * Built from the model's stored JSON Schema alone, like the rest of the document.
 */

const COMPONENTS = '#/components/schemas/';
const ref = (name: string): JsonSchema => ({ $ref: `${COMPONENTS}${name}` });

/** What a value may be, as far as a filter tells kinds apart; an array knows its elements' kinds. */
type Kind = { kind: 'number' | 'string' | 'boolean' | 'object' | 'any' } | { kind: 'array'; of: Kind[] };

/** Deep enough for any array a filter compares whole; deeper elements are shown as any value. */
const MAX_ARRAY_NESTING = 3;

function kindsHeld(schema: FieldSchema, defs: Record<string, FieldSchema>, nesting = 0): Kind[] {
  const found = new Map<string, Kind>();
  for (const alternative of alternatives(schema, defs)) {
    const kinds = kindsOf(alternative);
    if (kinds === undefined || nesting >= MAX_ARRAY_NESTING) return [{ kind: 'any' }];
    for (const kind of kinds) {
      // null is its own branch of every condition ({"field": null}, $eq/$ne null, $exists).
      if (kind === 'null') continue;
      if (kind === 'array') found.set('array', { kind, of: kindsHeld({ anyOf: elementSchemas(alternative, defs) }, defs, nesting + 1) });
      else found.set(kind, { kind } as Kind);
    }
  }
  return [...found.values()];
}

const nameOf = (kinds: Kind[]): string =>
  kinds.length === 0 ? 'nothing' : kinds.map((k) => (k.kind === 'array' ? `array_of_${nameOf(k.of)}` : k.kind)).join('_or_');

/** Any value but null (which every condition takes in its own branch), spelt out: an empty schema in anyOf says nothing. */
const ANY_VALUE: JsonSchema = {
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: true }, { type: 'array' }],
};

function valueSchema(kinds: Kind[]): JsonSchema {
  const one = (k: Kind): JsonSchema => {
    if (k.kind === 'any') return ANY_VALUE;
    if (k.kind === 'array') return { type: 'array', items: valueSchema(k.of) };
    // An object operand is compared whole (key by key, in any order); its keys are the field's.
    if (k.kind === 'object') return { type: 'object', additionalProperties: true };
    return { type: k.kind };
  };
  if (kinds.some((k) => k.kind === 'any')) return ANY_VALUE;
  return kinds.length === 1 ? one(kinds[0]) : { anyOf: kinds.map(one) };
}

const holds = (kinds: Kind[], kind: Kind['kind']) => kinds.some((k) => k.kind === kind || k.kind === 'any');
const list = (value: JsonSchema): JsonSchema => ({ type: 'array', items: value, minItems: 1, maxItems: LIMITS.maxInValues });
const orNull = (value: JsonSchema): JsonSchema => ({ anyOf: [value, { type: 'null' }] });

/** The operator object of a field holding `kinds`: only the operators the parser takes for them. */
function operatorsSchema(kinds: Kind[], name: string): JsonSchema {
  const value = valueSchema(kinds);
  const orderedKinds = kinds.filter((k) => k.kind === 'number' || k.kind === 'string' || k.kind === 'any');
  const ordered = orderedKinds.length > 0 ? valueSchema(holds(kinds, 'any') ? [{ kind: 'number' }, { kind: 'string' }] : orderedKinds) : undefined;
  const elements = kinds.flatMap((k) => (k.kind === 'array' ? k.of : k.kind === 'any' ? [k] : []));
  const contains = [...(holds(kinds, 'string') ? [{ type: 'string' }] : []), ...(elements.length > 0 ? [valueSchema(elements)] : [])];
  const properties: Record<string, JsonSchema> = {
    $eq: orNull(value),
    $ne: orNull(value),
    $in: list(value),
    $nin: list(value),
    ...(ordered
      ? {
          $gt: ordered,
          $gte: ordered,
          $lt: ordered,
          $lte: ordered,
          $between: { type: 'array', items: ordered, minItems: 2, maxItems: 2, description: '[low, high], low <= high' },
        }
      : {}),
    $exists: { type: 'boolean', description: 'true: present and not null; false: null or missing' },
    ...(holds(kinds, 'string') ? { $begins_with: { type: 'string' } } : {}),
    ...(contains.length > 0
      ? { $contains: { ...(contains.length === 1 ? contains[0] : { anyOf: contains }), description: 'A substring of a string, or an element of an array' } }
      : {}),
    $not: ref(name),
  };
  return {
    type: 'object',
    description: 'Operators, ANDed; $ne and $nin keep records where the field is missing or null',
    properties,
    additionalProperties: false,
    minProperties: 1,
  };
}

/** A field's condition: a value (equality), null (null or missing), a list ($in), or operators. */
function conditionSchema(kinds: Kind[], operators: string): JsonSchema {
  const value = valueSchema(kinds);
  return { anyOf: [value, { type: 'null' }, list(value), ref(operators)] };
}

export const filterSchemaName = (model: Model) => `${model.name}_filter`;

/** Dotted paths reach into object fields (and fields of any kind) only, as the parser allows. */
const pathPattern = (field: string) => `^${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`;

/**
 * Component schemas of the filters of `models`: one `<model>_filter` each, and the conditions
 * they share by the kinds a field holds (`filter_string`, `filter_number_operators`, ...).
 */
export function filterComponents(models: ReadonlyArray<Model>): Record<string, JsonSchema> {
  const shared: Record<string, JsonSchema> = {};
  const condition = (kinds: Kind[]): JsonSchema => {
    const name = `filter_${nameOf(kinds)}`;
    if (!shared[name]) {
      shared[name] = conditionSchema(kinds, `${name}_operators`);
      shared[`${name}_operators`] = operatorsSchema(kinds, `${name}_operators`);
    }
    return ref(name);
  };
  const perModel = models.map((model) => {
    const defs = model.storedSchema.$defs ?? {};
    const fields: Array<[string, FieldSchema]> = [
      ['id', SYSTEM_FIELDS.id],
      ...Object.entries(model.storedSchema.properties),
      ...Object.entries(SYSTEM_FIELDS).filter(([name]) => name !== 'id'),
    ];
    const properties: Record<string, JsonSchema> = {};
    const patternProperties: Record<string, JsonSchema> = {};
    for (const [field, schema] of fields) {
      const kinds = kindsHeld(schema, defs);
      properties[field] = condition(kinds);
      if (holds(kinds, 'object')) patternProperties[pathPattern(field)] = condition([{ kind: 'any' }]);
    }
    const self = filterSchemaName(model);
    const logic = { type: 'array', items: ref(self), minItems: 1 };
    return [
      self,
      {
        type: 'object',
        description:
          `A ${model.name} filter: keys at one level are ANDed; a field name (or a dotted path into an object field) takes a value, null, a list or operators. ` +
          `At most ${LIMITS.maxFilterDepth} levels, ${LIMITS.maxFilterConditions} conditions, ${LIMITS.maxFilterExpressionLength} characters once compiled, ` +
          `and ${LIMITS.maxFilterStringLength} characters (Unicode code points) per string.`,
        properties: { ...properties, $and: logic, $or: logic, $not: ref(self) },
        ...(Object.keys(patternProperties).length > 0 ? { patternProperties } : {}),
        additionalProperties: false,
      },
    ] as const;
  });
  return { ...Object.fromEntries(perModel), ...shared };
}
