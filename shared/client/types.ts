import type * as z from 'zod';
import type {
  countAnswerSchema, deleteAnswerSchema, healthAnswerSchema, listAnswerSchema, modelsAnswerSchema, recordSchema,
  updateAnswerSchema,
} from '../api/responses';
import type { countRequest, createRequest, deleteRequest, getOneRequest, listRequest, updateRequest } from '../api/requests';
import type { ExactNumber } from '../json/exact-json';
import type { Model } from '../models/define';

/**
 * The client's types, all taken from the zod schemas the service validates with. Numbers are
 * ExactNumber both ways: one that a JS number cannot hold exactly travels as a NumberValue.
 */
export type Exact<T> = T extends number ? ExactNumber
  : T extends ReadonlyArray<infer E> ? Exact<E>[]
    : T extends object ? { [K in keyof T]: Exact<T[K]> }
      : T;

type SchemaOf<M extends Model> = M['schema'];

/** What a record's data is when sent: the model schema's input, numbers exact. */
export type RecordData<M extends Model> = Exact<z.input<SchemaOf<M>>>;

/** A record as answered: id, the model's fields, the system fields. */
export type RecordOf<M extends Model> = Exact<z.output<ReturnType<typeof recordSchema<SchemaOf<M>>>>>;

export type CreateOne<M extends Model> = Omit<z.input<typeof createRequest>, 'data' | 'ids'> & { data: RecordData<M> };
export type CreateMany<M extends Model> = Omit<z.input<typeof createRequest>, 'data' | 'id'> & { data: RecordData<M>[] };
export type GetOneBody = z.input<typeof getOneRequest>;
export type ListBody = z.input<typeof listRequest>;
export type CountBody = z.input<typeof countRequest>;
/** values: the model's fields; null removes an optional one. */
export type UpdateBody<M extends Model> = Omit<z.input<typeof updateRequest>, 'values'> & { values: { [K in keyof RecordData<M>]?: RecordData<M>[K] | null } };
export type DeleteBody = z.input<typeof deleteRequest>;

export type ListAnswer<M extends Model> = Exact<z.output<ReturnType<typeof listAnswerSchema<SchemaOf<M>>>>>;
export type CountAnswer = Exact<z.output<typeof countAnswerSchema>>;
export type UpdateAnswer = Exact<z.output<typeof updateAnswerSchema>>;
export type DeleteAnswer = Exact<z.output<typeof deleteAnswerSchema>>;
export type ModelsAnswer = Exact<z.output<typeof modelsAnswerSchema>>;
export type HealthAnswer = Exact<z.output<typeof healthAnswerSchema>>;
