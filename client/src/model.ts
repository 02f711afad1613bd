import type { ClientNumber, JsonNumber } from './json.js';

/**
 * What the client knows of a model: types only, no schema at run time. `npm run client:types`
 * writes one per model from the zod models (client/src/models/); a model known only by name is
 * `UntypedModel`.
 */
export interface ModelTypes {
  /** The name the routes use: /api/db/<name>/... */
  name: string;
  /** A record's own fields as answered, without id and the system fields. */
  record: object;
  /** What a create sends: without read-only fields, the owner and tenant fields optional (the service fills them in). */
  data: object;
  /** The indexed fields: what list can order by besides id. */
  indexed: string;
}

/** A model named at run time: any field, any order. */
export interface UntypedModel extends ModelTypes {
  record: Record<string, unknown>;
  data: Record<string, unknown>;
  indexed: string;
}

/** A model as a value: its name, with its types riding along for `db.model(ref)` and `operation(ref, ...)`. */
export interface ModelRef<T extends ModelTypes = ModelTypes> {
  readonly name: T['name'];
  /** Types only: never set. */
  readonly types?: T;
}

/** Numbers exact: a number of a model's data is number | JsonNumber both ways. */
export type Exact<T> = T extends number ? ClientNumber : T extends ReadonlyArray<infer E> ? Exact<E>[] : T extends object ? { [K in keyof T]: Exact<T[K]> } : T;

/** id and the system fields as the service writes them: _version a plain number, the times ISO strings. */
export interface SystemValues {
  id: string;
  _created_at: string;
  _updated_at: string;
  _version: number;
}

type Flat<T> = { [K in keyof T]: T[K] };

/** A record as answered: id, the model's fields (numbers exact), the system fields. */
export type RecordOf<M extends ModelTypes> = Flat<Exact<M['record']> & SystemValues>;

/** What a record's data is when sent: numbers exact. */
export type RecordData<M extends ModelTypes> = Exact<M['data']>;

/** A name `fields` may list: id, a field of the model, a system field. */
export type FieldName<M extends ModelTypes> = keyof RecordOf<M> & string;

/**
 * A record as get_one and list answer it. Without `fields` the whole record; with a literal list
 * (inferred as a tuple) id and exactly those fields, each as optional as in the record; with a
 * list only known as an array, id and any of them.
 */
export type ReadRecord<M extends ModelTypes, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> =
  F extends ReadonlyArray<infer K>
    ? number extends F['length']
      ? Only<RecordOf<M>, 'id'> & Partial<Only<RecordOf<M>, K>>
      : Only<RecordOf<M>, 'id' | K>
    : RecordOf<M>;

/** Pick without Pick's constraint, keeping each property's `?`; an untyped record (an index signature) stays as it is. */
type Only<R, K> = string extends keyof R ? R : { [P in keyof R as P extends K ? P : never]: R[P] };

/** A value a filter compares a field with: what the field holds, numbers exact, null apart. */
type Operand<T> = Exclude<T, null | undefined>;
/** Range operators compare numbers with numbers and strings with strings. */
type Ordered<V> = Extract<V, string | number | JsonNumber>;
type HasString<V> = [Extract<V, string>] extends [never] ? false : true;
/** $contains: a substring of a string, or an element of an array. */
type Contained<V> = (HasString<V> extends true ? string : never) | (V extends ReadonlyArray<infer E> ? E : never);

/** The filter operators, only those a field of this kind takes. */
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
 * fields only (a template-literal key per object field, so a misspelt name does not compile on a
 * model with object fields either). The service refuses what does not compile (unknown_field, invalid_filter).
 */
export type Filter<M extends ModelTypes = UntypedModel> = { [K in keyof RecordOf<M>]?: FilterCondition<Operand<RecordOf<M>[K]>> } & {
  $and?: Filter<M>[];
  $or?: Filter<M>[];
  $not?: Filter<M>;
} & ([ObjectField<RecordOf<M>>] extends [never] ? unknown : { [P in `${ObjectField<RecordOf<M>>}.${string}`]?: FilterCondition<unknown> });

/** What list can order M by: id or an indexed field, "-" for descending (one key; ties by id). */
export type OrderKey<M extends ModelTypes = UntypedModel> = 'id' | M['indexed'] | `-${'id' | M['indexed']}`;

type NumberField<R> = { [K in keyof R]-?: [Extract<Operand<R[K]>, ClientNumber>] extends [never] ? never : K }[keyof R];
type ArrayField<R> = { [K in keyof R]-?: [Extract<Operand<R[K]>, ReadonlyArray<unknown>>] extends [never] ? never : K }[keyof R];
type ElementOf<V> = V extends ReadonlyArray<infer E> ? E : never;
/** A dotted path into an object field reaches any depth: the service checks what it holds there. */
type Dotted<R> = [ObjectField<R>] extends [never] ? unknown : { [P in `${ObjectField<R>}.${string}`]?: unknown };
type Fields<R, V> = { [K in keyof R]?: V } & Dotted<R>;
type Each<R, K extends keyof R> = ElementOf<Operand<R[K]>> | { $each: ElementOf<Operand<R[K]>>[] };

/**
 * An update's values: the model's fields set whole (null removes an optional one), and the
 * operators, each only on the fields whose kind takes it: $inc on numbers, $push, $addToSet and
 * $pull on arrays, $min and $max on what orders.
 */
export type UpdateValues<M extends ModelTypes, D = RecordData<M>> = { [K in keyof D]?: D[K] | null } & {
  $set?: { [K in keyof D]?: D[K] | null } & Dotted<D>;
  $setOnInsert?: { [K in keyof D]?: D[K] } & Dotted<D>;
  $unset?: Fields<D, unknown>;
  $inc?: { [K in NumberField<D>]?: ClientNumber } & Dotted<D>;
  $min?: { [K in keyof D]?: Ordered<Operand<D[K]>> } & Dotted<D>;
  $max?: { [K in keyof D]?: Ordered<Operand<D[K]>> } & Dotted<D>;
  $push?: { [K in ArrayField<D>]?: Each<D, K> };
  $addToSet?: { [K in ArrayField<D>]?: Each<D, K> };
  $pull?: { [K in ArrayField<D>]?: ElementOf<Operand<D[K]>> };
};
