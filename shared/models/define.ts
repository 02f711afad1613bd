import { LIMITS } from '../limits';
import { CLAIM_NAME } from '../auth/claims';
import { checkAggregates } from './check-aggregates';
import * as zm from '../zod';
import {
  isSystemField,
  typesOf,
  type FieldRule,
  type FieldSchema,
  type IndexKind,
  type Model,
  type ModelOptions,
  type ModelSchema,
  type TenantRule,
} from './model';

// Models import everything a declaration names from here, as they always have.
export * from './model';

type ObjectSchema = Model['jsonSchema'];

/** A model definition the service cannot serve (a name, a field, its indexes or shards), refused as the model is declared. */
export class InvalidModelDefinition extends Error {}

const MODEL_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,254}$/;

/** Whether a field of the schema only ever holds a string (optional or not): what an owner or a tenant can be. */
const holdsStrings = (schema: ModelSchema, field: string): boolean => {
  const types = typesOf(zm.toJSONSchema(schema.shape[field], { io: 'input' }) as FieldSchema);
  return types.length > 0 && types.every((t) => t === 'string');
};

/** Whether a model's schema refuses a key it does not declare (z.strictObject), rather than strip or keep it. */
const refusesUnknownKeys = (schema: ModelSchema): boolean => (schema._zod.def as { catchall?: zm.core.$ZodType }).catchall?._zod.def.type === 'never';

/** The owner, tenant and field rules name string fields of the model, apart from each other. */
function checkRules(options: ModelOptions<ModelSchema, string>): void {
  const { name, schema, owner, tenant } = options;
  const refuse = (message: string) => new InvalidModelDefinition(`model ${name}: ${message}`);
  for (const [rule, field] of [
    ['owner', owner],
    ['tenant', tenant?.field],
  ] as const) {
    if (field === undefined) continue;
    if (!Object.hasOwn(schema.shape, field)) throw refuse(`${rule} names ${field}, which is not a field of the model`);
    if (!holdsStrings(schema, field)) throw refuse(`${rule} field ${field} must be a string field`);
  }
  if (owner !== undefined && owner === tenant?.field) throw refuse(`owner and tenant name one field, ${owner}: a record's owner and its tenant are apart`);
  if (tenant && !CLAIM_NAME.test(tenant.claim)) throw refuse(`tenant claim ${JSON.stringify(tenant.claim)} must be 1 to 128 visible ASCII characters`);
  for (const [field, rule] of Object.entries(options.fields ?? {})) {
    if (!Object.hasOwn(schema.shape, field)) throw refuse(`fields names ${field}, which is not a field of the model`);
    if (field === owner || field === tenant?.field)
      throw refuse(`${field} is the ${field === owner ? 'owner' : 'tenant'} field, which its own rule already governs`);
    const visibleTo = rule?.visibleTo as { scope?: unknown; claim?: unknown } | undefined;
    if (visibleTo && (visibleTo.scope === undefined) === (visibleTo.claim === undefined)) throw refuse(`fields.${field}.visibleTo takes one of scope or claim`);
    if (visibleTo?.claim !== undefined && !CLAIM_NAME.test(String(visibleTo.claim)))
      throw refuse(`fields.${field}.visibleTo.claim must be 1 to 128 visible ASCII characters`);
    // A caller who may not name the field must still be able to create a record without it.
    if ((rule?.readOnly || visibleTo) && schema.shape[field]._zod.optin === undefined)
      throw refuse(
        `${field} is ${rule?.readOnly ? 'read-only' : 'hidden from some callers'}, so it must be optional or have a default: a caller who may not send it could never create a record`,
      );
    // Only a strict object refuses an unknown key: then a hidden field's name is refused exactly as one the model lacks.
    if (visibleTo && !refusesUnknownKeys(schema))
      throw refuse(`fields.${field} hides a field, which needs a strict schema (z.strictObject): a hidden field is refused as an unknown key is`);
  }
}

/**
 * A model, checked at declaration. Its JSON Schemas are built on first use: most requests never
 * need them (the models endpoint, OpenAPI and the filter parser do), so cold starts do not pay
 * for them.
 */
export function defineModel<
  S extends ModelSchema,
  const I extends keyof zm.infer<S> & string = never,
  // The rules' fields kept as written, so that the typed client leaves read-only fields out of what
  // a request sends, and the owner and tenant fields, which the service fills in, optional there.
  const F extends NonNullable<ModelOptions<S, I>['fields']> = Record<never, FieldRule>,
  const O extends keyof zm.infer<S> & string = never,
  const T extends keyof zm.infer<S> & string = never,
>(
  options: ModelOptions<S, I> & { fields?: F; owner?: O; tenant?: TenantRule<T> },
): Model<S, I> & { readonly fields: F; readonly owner?: O; readonly tenant?: TenantRule<T> } {
  const { name, schema, description } = options;
  if (!MODEL_NAME.test(name)) throw new InvalidModelDefinition(`model name ${name} must match ${MODEL_NAME}`);
  for (const field of Object.keys(schema.shape)) {
    if (!FIELD_NAME.test(field) || isSystemField(field)) {
      throw new InvalidModelDefinition(`model ${name}: field ${field} collides with a system field or is not a plain name`);
    }
  }
  const indexed: ReadonlyArray<I> = options.indexed ?? [];
  if (indexed.length > LIMITS.maxIndexedFields) {
    throw new InvalidModelDefinition(
      `model ${name}: indexed lists ${indexed.length} fields (${indexed.join(', ')}), but the table has ${LIMITS.maxIndexedFields} index slots`,
    );
  }
  const indexKinds = indexed.map((field) => {
    const types = typesOf(zm.toJSONSchema(schema.shape[field], { io: 'input' }) as FieldSchema);
    if (types.length === 0 || !types.every((t) => t === 'string' || t === 'number' || t === 'integer')) {
      throw new InvalidModelDefinition(`model ${name}: indexed field ${field} must be a string or a number`);
    }
    return [...new Set(types.map((t): IndexKind => (t === 'string' ? 'string' : 'number')))].sort();
  });
  checkRules(options as ModelOptions<ModelSchema, string>);
  checkAggregates(options as ModelOptions<ModelSchema, string>, (message) => new InvalidModelDefinition(`model ${name}: ${message}`));
  const shards = options.shards ?? 1;
  if (!Number.isInteger(shards) || shards < 1 || shards > LIMITS.maxShards)
    throw new InvalidModelDefinition(`model ${name}: shards must be 1..${LIMITS.maxShards}`);
  const built: Partial<Record<'input' | 'output', ObjectSchema>> = {};
  const toJsonSchema = (io: 'input' | 'output'): ObjectSchema => {
    if (!built[io]) {
      const { $schema: _, ...rest } = zm.toJSONSchema(schema, { io }) as ObjectSchema;
      built[io] = rest as ObjectSchema;
    }
    return built[io];
  };
  return {
    name,
    description,
    schema,
    indexed,
    indexKinds,
    shards,
    access: options.access ?? 'read_write',
    retention: options.retention as Model['retention'],
    owner: options.owner,
    tenant: options.tenant as TenantRule<T> | undefined,
    fields: (options.fields ?? {}) as Model['fields'] & F,
    aggregates: (options.aggregates ?? {}) as Model['aggregates'],
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
    get jsonSchema() {
      return toJsonSchema('input');
    },
    get storedSchema() {
      return toJsonSchema('output');
    },
  };
}
