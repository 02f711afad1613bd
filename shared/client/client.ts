import type { ErrorDetail } from '../models/details';
import type { ErrorEnvelope } from '../answer/envelope-schema';
import type { Model } from '../models/model';
import type {
  CountAnswer,
  CountBody,
  CreateMany,
  CreateOne,
  DeleteAnswer,
  DeleteBody,
  FieldName,
  GetOneBody,
  HealthAnswer,
  ListAnswer,
  ListBody,
  ModelsAnswer,
  ReadRecord,
  RecordOf,
  TransactionAnswer,
  TransactionOperation,
  UpdateAnswer,
  UpdateBody,
} from './types';
import { parseAnswer, stringifyBody } from './json-number';

export type ApiErrorCode = ErrorEnvelope['data']['error'];

/** An error answer of the service: its HTTP status, `data.error` code, details and the rest of `data`. */
export class RecordgateError extends Error {
  override readonly name = 'RecordgateError';
  readonly code: ApiErrorCode;
  readonly details: ErrorDetail[];

  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
  ) {
    super(envelope.message);
    this.code = envelope.data.error;
    this.details = envelope.data.details ?? [];
  }

  get data(): ErrorEnvelope['data'] {
    return this.envelope.data;
  }
}

export interface ClientOptions {
  /** Where the service answers, e.g. http://127.0.0.1:3000 or the API Gateway URL. */
  baseUrl: string;
  /** An API token; sent as Authorization: Bearer. */
  token?: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}

/** If-Match of an update or delete of one record by id: the etag getOneTagged gave (or several, or '*'); a changed record is a RecordgateError 412. */
export interface IfMatch {
  ifMatch?: string | ReadonlyArray<string>;
}

/** If-None-Match: '*' on create: an id that exists is a RecordgateError 412 instead of 409. */
export interface IfNoneMatch {
  ifNoneMatch?: '*';
}

export interface ModelClient<M extends Model> {
  create(body: CreateOne<M>, conditions?: IfNoneMatch): Promise<RecordOf<M>>;
  create(body: CreateMany<M>, conditions?: IfNoneMatch): Promise<{ records: RecordOf<M>[] }>;
  getOne<const F extends ReadonlyArray<FieldName<M>> | undefined = undefined>(body: GetOneBody<M, F>): Promise<ReadRecord<M, F>>;
  /** getOne with the record's ETag, for the If-Match of the next write. */
  getOneTagged<const F extends ReadonlyArray<FieldName<M>> | undefined = undefined>(
    body: GetOneBody<M, F>,
  ): Promise<{ record: ReadRecord<M, F>; etag: string }>;
  list<const F extends ReadonlyArray<FieldName<M>> | undefined = undefined>(body?: ListBody<M, F>): Promise<ListAnswer<M, F>>;
  count(body?: CountBody<M>): Promise<CountAnswer>;
  update(body: UpdateBody<M>, conditions?: IfMatch): Promise<UpdateAnswer>;
  /** update with the record's new ETag, for the If-Match of the next write: null unless the filters name one id and it made or changed that record. */
  updateTagged(body: UpdateBody<M>, conditions?: IfMatch): Promise<{ answer: UpdateAnswer; etag: string | null }>;
  delete(body: DeleteBody<M>, conditions?: IfMatch): Promise<DeleteAnswer>;
}

export interface Client {
  db: {
    /** Pass the model definition for typed records, or a name for untyped ones. */
    model<M extends Model>(model: M): ModelClient<M>;
    model(name: string): ModelClient<Model>;
  };
  /** Operations across models, applied all together or not at all (POST /api/db/transaction). */
  transaction(operations: ReadonlyArray<TransactionOperation>): Promise<TransactionAnswer>;
  models(): Promise<ModelsAnswer>;
  health(): Promise<HealthAnswer>;
}

/** One operation of a transaction, typed by its model: `operation(account, { op: 'update', id, values: { balance: 0 } })`. */
export const operation = <M extends Model>(model: M, op: DistributiveOmit<TransactionOperation<M>, 'model'>): TransactionOperation =>
  ({ ...op, model: model.name }) as TransactionOperation;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Answers that are not the service's envelope (a proxy's HTML page, an empty body) still surface as a RecordgateError. */
function envelopeOf(status: number, text: string): unknown {
  try {
    return parseAnswer(text);
  } catch {
    return { status: 'error', message: `HTTP ${status}: the answer is not JSON`, data: { error: status >= 500 ? 'internal' : 'invalid_request' } };
  }
}

/** A typed client for the record API. Numbers travel exactly both ways (lossless JSON). */
export function createClient(options: ClientOptions): Client {
  const send = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};

  async function answer<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ data: T; headers: Headers }> {
    const response = await send(`${base}${path}`, {
      method,
      headers: { ...auth, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : stringifyBody(body),
    });
    const envelope = envelopeOf(response.status, await response.text()) as { status?: string; data?: unknown };
    if (response.ok && envelope.status === 'success') return { data: envelope.data as T, headers: response.headers };
    throw new RecordgateError(response.status, envelope as ErrorEnvelope);
  }
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>): Promise<T> =>
    (await answer<T>(method, path, body, headers)).data;
  const conditionHeaders = ({ ifMatch, ifNoneMatch }: IfMatch & IfNoneMatch = {}): Record<string, string> => ({
    ...(ifMatch === undefined ? {} : { 'if-match': typeof ifMatch === 'string' ? ifMatch : ifMatch.join(', ') }),
    ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }),
  });

  const model = (target: Model | string): ModelClient<Model> => {
    const name = typeof target === 'string' ? target : target.name;
    const path = (operation: string) => `/api/db/${encodeURIComponent(name)}/${operation}`;
    const op =
      <T>(operation: string) =>
      (body: unknown = {}, conditions?: IfMatch & IfNoneMatch) =>
        call<T>('POST', path(operation), body, conditionHeaders(conditions));
    return {
      create: op('create') as ModelClient<Model>['create'],
      getOne: op('get_one'),
      getOneTagged: (async (body: unknown) => {
        const { data, headers } = await answer('POST', path('get_one'), body);
        return { record: data, etag: headers.get('etag') ?? '' };
      }) as ModelClient<Model>['getOneTagged'],
      list: op('list'),
      count: op('count'),
      update: op('update'),
      updateTagged: async (body: unknown, conditions?: IfMatch) => {
        const { data, headers } = await answer<UpdateAnswer>('POST', path('update'), body, conditionHeaders(conditions));
        return { answer: data, etag: headers.get('etag') };
      },
      delete: op('delete'),
    };
  };

  return {
    db: { model: model as Client['db']['model'] },
    transaction: (operations) => call('POST', '/api/db/transaction', { operations }),
    models: () => call('GET', '/api/db/models'),
    health: () => call('GET', '/api/db/health'),
  };
}
