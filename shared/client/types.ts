import type * as z from 'zod';
import type * as Package from '../../client/src/index.js';
import type { Model } from '../models/model';

/**
 * The forked layout's types: the client package (client/, `recordgate-client`) types a model by
 * a ModelTypes its generator writes; here a model definition of shared/models/ gives them
 * directly, from its zod schema, so that `recordgate/client` takes `db.model(reaction)` as before.
 */

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
 * A model definition's types as the client package takes them: its records as the schema's
 * output; what a write sends as its input without the read-only fields, and with the owner and
 * tenant fields optional. A field hidden from some callers stays: the client does not know its
 * caller (a record read has it optional, as defineModel holds every hidden field).
 */
export interface TypesOf<M extends Model> {
  name: string;
  record: z.output<SchemaOf<M>>;
  data: Sent<z.input<SchemaOf<M>>, ReadOnlyField<M>, FilledField<M>>;
  indexed: M['indexed'][number];
}

export type RecordOf<M extends Model> = Package.RecordOf<TypesOf<M>>;
export type RecordData<M extends Model> = Package.RecordData<TypesOf<M>>;
export type FieldName<M extends Model> = Package.FieldName<TypesOf<M>>;
export type ReadRecord<M extends Model, F extends ReadonlyArray<FieldName<M>> | undefined = undefined> = Package.ReadRecord<TypesOf<M>, F>;
export type Filter<M extends Model = Model> = Package.Filter<TypesOf<M>>;
export type OrderKey<M extends Model = Model> = Package.OrderKey<TypesOf<M>>;
export type UpdateValues<M extends Model> = Package.UpdateValues<TypesOf<M>>;
export type TransactionOperation<M extends Model = Model> = Package.TransactionOperation<TypesOf<M>>;
export type ModelClient<M extends Model> = Package.ModelClient<TypesOf<M>>;

export interface Client extends Omit<Package.Client, 'db'> {
  db: {
    /** Pass the model definition for typed records, or a name for untyped ones. */
    model<M extends Model>(model: M): ModelClient<M>;
    model(name: string): Package.ModelClient<Package.UntypedModel>;
  };
}
