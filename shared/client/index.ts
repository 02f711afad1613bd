import { createClient as createPackageClient, operation as packageOperation, type ClientOptions, type ModelRef } from '../../client/src/index.js';
import type { Model } from '../models/model';
import type { Client, TransactionOperation, TypesOf } from './types';

/**
 * `recordgate/client`, the forked layout's entry: the client package's sources (client/src), with
 * the model definitions of shared/models/ typing `db.model(reaction)` and `operation(reaction, ...)`
 * as before. A project outside this repository installs `recordgate-client` instead (docs/client.md).
 */
export {
  type ApiErrorCode,
  type CallOptions,
  type ClientNumber,
  type ClientOptions,
  type CountAnswer,
  type DeleteAnswer,
  type ErrorDetail,
  type HealthAnswer,
  type IfMatch,
  type IfNoneMatch,
  JsonNumber,
  type ModelsAnswer,
  RecordgateError,
  type RetryOptions,
  type TransactionAnswer,
  type UpdateAnswer,
  type WriteOptions,
} from '../../client/src/index.js';
export type * from './types';

/** A typed client for the record API. Numbers travel exactly both ways. */
export const createClient = (options: ClientOptions): Client => createPackageClient(options) as Client;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** One operation of a transaction, typed by its model: `operation(account, { op: 'update', id, values: { balance: 0 } })`. */
export const operation = <M extends Model>(model: M, op: DistributiveOmit<TransactionOperation<M>, 'model'>): TransactionOperation =>
  packageOperation(model as ModelRef<TypesOf<M>>, op) as TransactionOperation;
