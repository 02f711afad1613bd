import * as z from 'zod';
import type { FieldSchema, Model } from '../models/model';

/** Values for JSON Schema string formats that the plain word "example" would break. */
const FORMATTED: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/** A plausible value for a field: its own example or default if the model gives one, else one made from its type. */
export function exampleOf(schema: FieldSchema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.anyOf?.[0]) return exampleOf(schema.anyOf[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return FORMATTED[schema.format as string] ?? 'example';
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return schema.items ? [exampleOf(schema.items)] : [];
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, exampleOf(s)]));
    default:
      return null;
  }
}

/**
 * The data of one example record of a model, every field a caller may send filled in (a
 * read-only one left out: a request naming it is refused); none when the model's own rules
 * (refinements between fields) refuse it, since the page must not offer a body that fails.
 * A model shows a better one with `.meta({ examples: [...] })` on its schema.
 */
export function exampleData(model: Model): Record<string, unknown> | undefined {
  const filled = exampleOf(model.jsonSchema) as Record<string, unknown>;
  const data = Object.fromEntries(Object.entries(filled).filter(([field]) => !model.fields[field]?.readOnly));
  return z.safeParse(model.schema, data).success ? data : undefined;
}
