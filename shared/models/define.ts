import { LIMITS } from '../limits';
import { CLAIM_NAME } from '../auth/claims';
import type { Scope } from '../auth/scopes';
import * as zm from '../zod';

/** JSON Schema of one field, as zod's toJSONSchema writes it. */
export type FieldSchema = {
  type?: string | string[];
  properties?: Record<string, FieldSchema>;
  additionalProperties?: boolean | FieldSchema;
  items?: FieldSchema | false;
  prefixItems?: FieldSchema[];
  anyOf?: FieldSchema[];
  oneOf?: FieldSchema[];
  allOf?: FieldSchema[];
  /** The keys a record (zm.record) admits: an enum or a pattern. */
  propertyNames?: { enum?: unknown[]; pattern?: string };
  /** A schema used more than once or recursively (zm.lazy): `#/$defs/<name>` of the model's schema. */
  $ref?: string;
  $defs?: Record<string, FieldSchema>;
  [key: string]: unknown;
};

/**
 * Who may do what with a model through the record API. `read_only` models are written by the
 * service itself (the OneBot receiver); `hidden` ones are not reachable at all.
 */
export type ModelAccess = 'read_write' | 'read_only' | 'hidden';

/** Each record belongs to the tenant its `field` names, which is the caller's `claim`: docs/security.md. */
export interface TenantRule<F extends string = string> {
  field: F;
  claim: string;
}

/**
 * A field's rule for API callers: `visibleTo` hides it from callers without that scope or claim
 * (to them it does not exist); `readOnly` lets only the service set it.
 */
export interface FieldRule {
  visibleTo?: { scope: Scope } | { claim: string };
  readOnly?: true;
}

/**
 * A model's schema: a zod object, in zod/mini (every record function loads its models at its cold
 * start, and the full API alone costs about as much to load as the whole SDK allowance) or in the full API.
 */
export type ModelSchema = zm.core.$ZodObject & { readonly shape: zm.core.$ZodShape };

export interface ModelOptions<S extends ModelSchema, I extends keyof zm.infer<S> & string = keyof zm.infer<S> & string> {
  name: string;
  description: string;
  schema: S;
  /** Fields with a secondary index: equality and range filters on them become key conditions, and list can order by them. At most three, append only. */
  indexed?: ReadonlyArray<I>;
  /** Partition keys to spread the model over; fixed once the model holds data. */
  shards?: number;
  access?: ModelAccess;
  /** Seconds a new record is kept, or undefined to keep it; DynamoDB's TTL deletes it after that. */
  retention?: (data: zm.infer<S>) => number | undefined;
  /** A string field holding the subject of the caller that created the record: a caller without admin reaches only its own. */
  owner?: keyof zm.infer<S> & string;
  /** A string field naming the record's tenant, from the caller's claim: no caller reaches another tenant's records. */
  tenant?: TenantRule<keyof zm.infer<S> & string>;
  /** Rules of single fields for API callers. */
  fields?: Partial<Record<keyof zm.infer<S> & string, FieldRule>>;
}

/** `I`: the indexed fields, kept as literal names so that the typed client knows what list can order by. */
export interface Model<S extends ModelSchema = ModelSchema, I extends string = string> {
  readonly name: string;
  readonly description: string;
  readonly schema: S;
  readonly indexed: ReadonlyArray<I>;
  /** indexKinds[N]: what indexed[N] holds as its index keys encode it (numbers and strings encode apart), sorted. */
  readonly indexKinds: ReadonlyArray<ReadonlyArray<IndexKind>>;
  readonly shards: number;
  readonly access: ModelAccess;
  readonly retention?: (data: Record<string, unknown>) => number | undefined;
  readonly owner?: string;
  readonly tenant?: TenantRule;
  readonly fields: Readonly<Record<string, FieldRule>>;
  /** JSON Schema of the record data a caller sends (without id and system fields). */
  readonly jsonSchema: ObjectSchema;
  /** JSON Schema of the data as stored (zod's output: stripped keys gone, defaults filled); filters resolve paths against it. */
  readonly storedSchema: ObjectSchema;
}

type ObjectSchema = FieldSchema & { properties: Record<string, FieldSchema> };

export type ModelRecord<M extends Model> = zm.infer<M['schema']>;

/** What an index key tells apart of an indexed field's values. */
export type IndexKind = 'number' | 'string';

/** What list can order a model's records by: id, and each indexed field (whose index keys sort). */
export const sortableFields = <I extends string>(model: Model<ModelSchema, I>): Array<'id' | I> => ['id', ...model.indexed];

/** A model definition the service cannot serve (a name, a field, its indexes or shards), refused as the model is declared. */
export class InvalidModelDefinition extends Error {}

const MODEL_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,254}$/;

/** Names every record has outside its model's fields. */
export const SYSTEM_FIELDS = {
  id: { type: 'string', description: 'Record id: given at create, or a time-ordered ULID' },
  _created_at: { type: 'string', format: 'date-time', description: 'When the record was created' },
  _updated_at: { type: 'string', format: 'date-time', description: 'When the record was last written' },
  _version: { type: 'integer', minimum: 1, description: 'Starts at 1, grows by one per update' },
} as const satisfies Record<string, FieldSchema>;

export type SystemField = keyof typeof SYSTEM_FIELDS;

export function isSystemField(name: string): name is SystemField {
  return Object.hasOwn(SYSTEM_FIELDS, name);
}

export function typesOf(schema: FieldSchema): string[] {
  if (schema.anyOf) return schema.anyOf.flatMap(typesOf);
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

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
    get jsonSchema() {
      return toJsonSchema('input');
    },
    get storedSchema() {
      return toJsonSchema('output');
    },
  };
}
