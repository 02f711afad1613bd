import type { FieldSchema, Model } from '../../models/model';

type ObjectSchema = FieldSchema & { properties: Record<string, FieldSchema> };

/** A model's JSON Schema without the fields a caller may not see: to that caller they are not in it. */
export function withoutFields<S extends ObjectSchema>(schema: S, hidden: ReadonlySet<string>): S {
  if (hidden.size === 0) return schema;
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([field]) => !hidden.has(field)));
  const required = (schema.required as string[] | undefined)?.filter((field) => !hidden.has(field));
  return { ...schema, properties, ...(required ? { required } : {}) };
}

/**
 * The model as a caller who may not see `hidden` knows it, for checking that caller's words
 * (filters, order_by, fields, update paths) with the store's own parsers, so that a hidden field
 * is refused exactly as a field the model lacks, in the same place and the same words, and the
 * names an error offers leave it out. It is never handed to a store action: the layout is kept
 * per model object and fingerprinted by the whole stored schema.
 */
export const modelSeenWithout = (model: Model, hidden: ReadonlySet<string>): Model =>
  Object.create(model, {
    storedSchema: { value: withoutFields(model.storedSchema, hidden) },
    indexed: { value: model.indexed.filter((field) => !hidden.has(field)) },
  });
