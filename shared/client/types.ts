import type * as z from 'zod';
import type {
  countAnswerSchema,
  deleteAnswerSchema,
  healthAnswerSchema,
  listAnswerSchema,
  modelsAnswerSchema,
  SystemValues,
  transactionAnswerSchema,
  updateAnswerSchema,
} from '../api/responses';
import type { countRequest } from '../api/requests/count';
import type { createRequest } from '../api/requests/create';
import type { deleteRequest } from '../api/requests/delete';
import type { getOneRequest } from '../api/requests/get-one';
import type { listRequest } from '../api/requests/list';
import type { updateRequest } from '../api/requests/update';
import type { Model } from '../models/model';
import type { ClientNumber, JsonNumber } from './json-number';

/**
 * The client's types, all taken from the zod schemas the service validates with. Numbers are
 * ClientNumber both ways: one that a JS number cannot hold exactly travels as a JsonNumber.
 */
export type Exact<T> = T extends number ? ClientNumber : T extends ReadonlyArray<infer E> ? Exact<E>[] : T extends object ? { [K in keyof T]: Exact<T[K]> } : T;

type SchemaOf<M extends Model> = M['schema'];

/** The fields defineModel declares read-only: only the service sets them, and a request naming one is refused (403). */
export type ReadOnlyField<M extends Model> = {
  [K in keyof z.input<SchemaOf<M>>]: M['fields'][K & string] extends { readOnly: true } ? K : never;
}[keyof z.input<SchemaOf<M>>] &
  string;

/** The owner field and the tenant field: the service fills them in from the caller (docs/security.md, Row rules). */
export type FilledField<M extends Model> = (NonNullable<M['owner']> | NonNullable<M['tenant']>['field']) & string;

type Sent<D, ReadOnly extends string, Filled extends string> = [ReadOnly | Filled] extends [never]
  ? D
  : Omit<D, ReadOnly | Filled> & Partial<Pick<D, Extract<keyof D, Exclude<Filled, ReadOnly>>>>;

/**
 * What a record's data is when sent: the model schema's input, numbers exact, without the
 * read-only fields, and with the owner and tenant fields optional (the service fills them in). A
 * field hidden from some callers stays: the client does not know its caller, and the service
 * refuses it as unknown to a caller who may not see it (a record read has it optional, as
 * defineModel holds every hidden field).
 */
export type RecordData<M extends Model> = Exact<Sent<z.input<SchemaOf<M>>, ReadOnlyField<M>, FilledField<M>>>;

/**
 * A record as answered: id, the model's fields (numbers exact), the system fields as the service
 * writes them (_version a plain number, never a JsonNumber; the times ISO strings).
 */
export type RecordOf<M extends Model> = Flat<Exact<z.output<SchemaOf<M>>> & SystemValues>;

type Flat<T> = { [K in keyof T]: T[K] };

/** A name `fields` may list: id, a field of the model, a system field. */
export type FieldName<M extends Model> = keyof RecordOf<M> & string;

/**
 * A record as get_one and list answer it. Without `fields` the whole record; with a literal list
 * (inferred as a tuple) id and exactly those fields, each as optional as in the record; with a
 * list only known as an array, id and any of them.
 */
export type ReadRecord<M extends Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> =
  F extends ReadonlyArray<infer K>
    ? number extends F['length']
      ? Only<RecordOf<M>, 'id'> & Partial<Only<RecordOf<M>, K>>
      : Only<RecordOf<M>, 'id' | K>
    : RecordOf<M>;

/**
 * Pick without Pick's constraint, which TypeScript cannot prove for a generic model; keeps each
 * property's `?`. An untyped model's record (an index signature) stays as it is.
 */
type Only<R, K> = string extends keyof R ? R : { [P in keyof R as P extends K ? P : never]: R[P] };

/** A value a filter compares a field with: what the field holds, numbers exact, null apart. */
type Operand<T> = Exclude<T, null | undefined>;
/** Range operators compare numbers with numbers and strings with strings. */
type Ordered<V> = Extract<V, string | number | JsonNumber>;
type HasString<V> = [Extract<V, string>] extends [never] ? false : true;
/** $contains: a substring of a string, or an element of an array. */
type Contained<V> = (HasString<V> extends true ? string : never) | (V extends ReadonlyArray<infer E> ? E : never);

/** The operators of shared/store/filter/parse.ts, only those a field of this kind takes. */
export type FilterOperators<V> = {
  $eq?: V | null;
  $ne?: V | null;
  $in?: V[];
  $nin?: V[];
  $exists?: boolean;
  $not?: FilterOperators<V>;
} & ([Ordered<V>] extends [never]
  ? unknown
  : { $gt?: Ordered<V>; $gte?: Ordered<V>; $lt?: Ordered<V>; $lte?: Ordered<V>; $between?: [Ordered<V>, Ordered<V>] }) &
  (HasString<V> extends true ? { $begins_with?: string } : unknown) &
  ([Contained<V>] extends [never] ? unknown : { $contains?: Contained<V> });

/** A field's condition: a value (equality), null (null or missing), a list ($in), or operators. */
export type FilterCondition<V> = V | null | V[] | FilterOperators<V>;

/** The fields of a record that hold objects: a dotted path reaches into them. */
type ObjectField<R> = {
  [K in keyof R]: Extract<Operand<R[K]>, ReadonlyArray<unknown>> extends never ? (Operand<R[K]> extends object ? K : never) : never;
}[keyof R] &
  string;

/**
 * A filter of model M: its field names (id, the model's fields, the system fields) with
 * conditions typed by what each holds, $and/$or/$not of filters, and dotted paths into object
 * fields. A misspelt field or an operator the field's kind has not fails to compile, as the
 * service would refuse it (unknown_field, invalid_filter).
 */
export type Filter<M extends Model = Model> = { [K in keyof RecordOf<M>]?: FilterCondition<Operand<RecordOf<M>[K]>> } & {
  $and?: Filter<M>[];
  $or?: Filter<M>[];
  $not?: Filter<M>;
} & ([ObjectField<RecordOf<M>>] extends [never] ? unknown : { [P in `${ObjectField<RecordOf<M>>}.${string}`]?: FilterCondition<unknown> });

/** What list can order M by: id or an indexed field, "-" for descending (one key; ties by id). */
export type OrderKey<M extends Model = Model> = 'id' | M['indexed'][number] | `-${'id' | M['indexed'][number]}`;

export type CreateOne<M extends Model> = Omit<z.input<typeof createRequest>, 'data' | 'ids'> & { data: RecordData<M> };
export type CreateMany<M extends Model> = Omit<z.input<typeof createRequest>, 'data' | 'id'> & { data: RecordData<M>[] };
/** `fields` names the model's own fields, so a typo fails to compile and the answer's type follows the list. */
export type GetOneBody<M extends Model = Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Omit<
  z.input<typeof getOneRequest>,
  'fields' | 'filters'
> & { filters: Filter<M>; fields?: F };
export type ListBody<M extends Model = Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Omit<
  z.input<typeof listRequest>,
  'fields' | 'filters' | 'order_by'
> & {
  filters?: Filter<M>;
  order_by?: OrderKey<M> | [OrderKey<M>];
  fields?: F;
};
export type CountBody<M extends Model = Model> = Omit<z.input<typeof countRequest>, 'filters'> & { filters?: Filter<M> };
type NumberField<R> = { [K in keyof R]-?: [Extract<Operand<R[K]>, ClientNumber>] extends [never] ? never : K }[keyof R];
type ArrayField<R> = { [K in keyof R]-?: [Extract<Operand<R[K]>, ReadonlyArray<unknown>>] extends [never] ? never : K }[keyof R];
type ElementOf<V> = V extends ReadonlyArray<infer E> ? E : never;
/** A dotted path into an object field reaches any depth: the service checks what it holds there. */
type Dotted<R> = [ObjectField<R>] extends [never] ? unknown : { [P in `${ObjectField<R>}.${string}`]?: unknown };
type Fields<R, V> = { [K in keyof R]?: V } & Dotted<R>;

/**
 * An update's values: the model's fields set whole (null removes an optional one), and the
 * operators of shared/store/operators/, each only on the fields whose kind takes it: $inc on
 * numbers, $push, $addToSet and $pull on arrays, $min and $max on what orders.
 */
export type UpdateValues<M extends Model> = { [K in keyof RecordData<M>]?: RecordData<M>[K] | null } & {
  $set?: { [K in keyof RecordData<M>]?: RecordData<M>[K] | null } & Dotted<RecordData<M>>;
  $setOnInsert?: { [K in keyof RecordData<M>]?: RecordData<M>[K] } & Dotted<RecordData<M>>;
  $unset?: Fields<RecordData<M>, unknown>;
  $inc?: { [K in NumberField<RecordData<M>>]?: ClientNumber } & Dotted<RecordData<M>>;
  $min?: { [K in keyof RecordData<M>]?: Ordered<Operand<RecordData<M>[K]>> } & Dotted<RecordData<M>>;
  $max?: { [K in keyof RecordData<M>]?: Ordered<Operand<RecordData<M>[K]>> } & Dotted<RecordData<M>>;
  $push?: { [K in ArrayField<RecordData<M>>]?: ElementOf<Operand<RecordData<M>[K]>> | { $each: ElementOf<Operand<RecordData<M>[K]>>[] } };
  $addToSet?: { [K in ArrayField<RecordData<M>>]?: ElementOf<Operand<RecordData<M>[K]>> | { $each: ElementOf<Operand<RecordData<M>[K]>>[] } };
  $pull?: { [K in ArrayField<RecordData<M>>]?: ElementOf<Operand<RecordData<M>[K]>> };
};

export type UpdateBody<M extends Model> = Omit<z.input<typeof updateRequest>, 'values' | 'filters'> & {
  filters: Filter<M>;
  values: UpdateValues<M>;
};
export type DeleteBody<M extends Model = Model> = Omit<z.input<typeof deleteRequest>, 'filters'> & { filters: Filter<M> };

/** The service's counters are integers a JS number holds: plain numbers, unlike record data. */
export type ListAnswer<M extends Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Omit<
  z.output<ReturnType<typeof listAnswerSchema<SchemaOf<M>>>>,
  'items'
> & { items: ReadRecord<M, F>[] };
export type CountAnswer = z.output<typeof countAnswerSchema>;
export type UpdateAnswer = z.output<typeof updateAnswerSchema>;
export type DeleteAnswer = z.output<typeof deleteAnswerSchema>;
export type ModelsAnswer = Exact<z.output<typeof modelsAnswerSchema>>;
export type HealthAnswer = Exact<z.output<typeof healthAnswerSchema>>;

/**
 * One operation of a transaction on model M, typed as M's own writes are: `transaction([...])`
 * takes operations on any models, each typed by the model given to `operation`.
 */
export type TransactionOperation<M extends Model = Model> =
  | { op: 'create'; model: string; id?: string; data: RecordData<M> }
  | { op: 'update'; model: string; id: string; values: UpdateBody<M>['values']; filters?: Filter<M> }
  | { op: 'delete'; model: string; id: string; filters?: Filter<M> }
  | { op: 'check'; model: string; id: string; filters: Filter<M> };
export type TransactionAnswer = Exact<z.output<typeof transactionAnswerSchema>>;
