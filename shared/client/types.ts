import type * as z from 'zod';
import type {
  countAnswerSchema,
  deleteAnswerSchema,
  healthAnswerSchema,
  listAnswerSchema,
  modelsAnswerSchema,
  recordSchema,
  updateAnswerSchema,
} from '../api/responses';
import type { countRequest, createRequest, deleteRequest, getOneRequest, listRequest, updateRequest } from '../api/requests';
import type { Model } from '../models/define';
import type { ClientNumber } from './json-number';

/**
 * The client's types, all taken from the zod schemas the service validates with. Numbers are
 * ClientNumber both ways: one that a JS number cannot hold exactly travels as a JsonNumber.
 */
export type Exact<T> = T extends number ? ClientNumber : T extends ReadonlyArray<infer E> ? Exact<E>[] : T extends object ? { [K in keyof T]: Exact<T[K]> } : T;

type SchemaOf<M extends Model> = M['schema'];

/** What a record's data is when sent: the model schema's input, numbers exact. */
export type RecordData<M extends Model> = Exact<z.input<SchemaOf<M>>>;

/** A record as answered: id, the model's fields, the system fields. */
export type RecordOf<M extends Model> = Exact<z.output<ReturnType<typeof recordSchema<SchemaOf<M>>>>>;

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

export type CreateOne<M extends Model> = Omit<z.input<typeof createRequest>, 'data' | 'ids'> & { data: RecordData<M> };
export type CreateMany<M extends Model> = Omit<z.input<typeof createRequest>, 'data' | 'id'> & { data: RecordData<M>[] };
/** `fields` names the model's own fields, so a typo fails to compile and the answer's type follows the list. */
export type GetOneBody<M extends Model = Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Omit<
  z.input<typeof getOneRequest>,
  'fields'
> & { fields?: F };
export type ListBody<M extends Model = Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Omit<z.input<typeof listRequest>, 'fields'> & {
  fields?: F;
};
export type CountBody = z.input<typeof countRequest>;
/** values: the model's fields; null removes an optional one. */
export type UpdateBody<M extends Model> = Omit<z.input<typeof updateRequest>, 'values'> & { values: { [K in keyof RecordData<M>]?: RecordData<M>[K] | null } };
export type DeleteBody = z.input<typeof deleteRequest>;

export type ListAnswer<M extends Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Omit<
  Exact<z.output<ReturnType<typeof listAnswerSchema<SchemaOf<M>>>>>,
  'items'
> & { items: ReadRecord<M, F>[] };
export type CountAnswer = Exact<z.output<typeof countAnswerSchema>>;
export type UpdateAnswer = Exact<z.output<typeof updateAnswerSchema>>;
export type DeleteAnswer = Exact<z.output<typeof deleteAnswerSchema>>;
export type ModelsAnswer = Exact<z.output<typeof modelsAnswerSchema>>;
export type HealthAnswer = Exact<z.output<typeof healthAnswerSchema>>;
