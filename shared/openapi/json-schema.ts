import * as z from 'zod';

export type JsonSchema = Record<string, unknown>;

const UNREPRESENTABLE = new Set(['bigint', 'symbol', 'undefined', 'void', 'date', 'map', 'set', 'transform', 'nan', 'function']);

type Io = 'input' | 'output';

const shown = new WeakMap<z.core.$ZodType, JsonSchema>();

/**
 * A copy of a `z.custom` schema that checks as the original does and that the document shows as
 * `json`: a request's filters are checked by the filter parser, not by zod, and shown as the
 * filter language's own JSON Schema (shared/openapi/filter-schema.ts).
 */
export function shownAs<T extends z.core.$ZodType & { clone(): T }>(schema: T, json: JsonSchema): T {
  const copy = schema.clone();
  shown.set(copy, json);
  return copy;
}

/**
 * JSON Schema 2020-12 (OpenAPI 3.1's dialect) from zod. The request schemas keep filters and
 * record data as `z.custom` JSON objects so that exact numbers reach the parsers untouched; in
 * the document they are what they are on the wire, objects.
 */
const options = (io: Io) => ({
  io,
  target: 'draft-2020-12' as const,
  // 'any' lets the override see custom schemas; every other unrepresentable type still throws there.
  unrepresentable: 'any' as const,
  override: ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }) => {
    const type = zodSchema._zod.def.type;
    if (type === 'custom') Object.assign(jsonSchema, shown.get(zodSchema) ?? { type: 'object' });
    else if (UNREPRESENTABLE.has(type)) throw new Error(`a ${type} schema cannot be shown in JSON Schema`);
    // zod spells out format date-time as a long regex too; the format says it.
    if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
  },
});

/** One schema with everything inline. */
export function jsonSchemaOf(schema: z.ZodType, io: Io): JsonSchema {
  const { $schema: _, ...out } = z.toJSONSchema(schema, options(io)) as JsonSchema;
  return out;
}

/** Every schema of a registry, by its id, referring to each other as OpenAPI components. */
export function componentSchemas(registry: z.core.$ZodRegistry<{ id: string }>, io: Io): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { ...options(io), uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as JsonSchema;
      return [id, rest];
    }),
  );
}
