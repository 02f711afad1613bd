import type { Scope } from '../auth/scopes';
import type * as zm from '../zod';

/*
 * What a model is, apart from how one is declared (./define.ts): the record functions read this at
 * every cold start, while defineModel and its checks load with the models themselves, in their
 * chunks (shared/models/catalog.ts), so a function pays for declaring only the models it serves.
 */

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
  /** A string field holding the subject of the caller that created the record: a caller without admin reaches only its own. */
  owner?: keyof zm.infer<S> & string;
  /** A string field naming the record's tenant, from the caller's claim: no caller reaches another tenant's records. */
  tenant?: TenantRule<keyof zm.infer<S> & string>;
  /** Rules of single fields for API callers. */
  fields?: Partial<Record<keyof zm.infer<S> & string, FieldRule>>;
  /** Counts and sums per group, kept as records change (shared/aggregates/): by name, at most LIMITS.maxAggregates. */
  aggregates?: Record<string, AggregateDefinition<keyof zm.infer<S> & string>>;
  /** An integer field of epoch seconds at and after which the record is expired: never answered, and deleted (docs/record-api.md, "Expiring records"). */
  ttl?: keyof zm.infer<S> & string;
}

/** One declared aggregate: records grouped by the values of `group_by` (none: one group), counted and/or summed. */
export interface AggregateDefinition<F extends string = string> {
  group_by: ReadonlyArray<F>;
  count?: boolean;
  /** Number fields summed per group. */
  sum?: ReadonlyArray<F>;
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
  readonly owner?: string;
  readonly tenant?: TenantRule;
  readonly fields: Readonly<Record<string, FieldRule>>;
  readonly aggregates: Readonly<Record<string, AggregateDefinition>>;
  readonly ttl?: string;
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
