import type * as Wire from './generated/wire.js';
import { parseJson, stringifyJson } from './json.js';
import type { Exact, FieldName, Filter, ModelRef, ModelTypes, OrderKey, ReadRecord, RecordData, RecordOf, UntypedModel, UpdateValues } from './model.js';
import { asksRetry, pause, type RetryOptions, retryAfterMs, retryDelayMs } from './retry.js';

export type ApiErrorCode = Wire.ErrorEnvelope['data']['error'];
export type ErrorDetail = NonNullable<Wire.ErrorEnvelope['data']['details']>[number];

/** An error answer of the service: its HTTP status, `data.error` code, details and the rest of `data`. */
export class RecordgateError extends Error {
  override readonly name = 'RecordgateError';
  readonly code: ApiErrorCode;
  readonly details: ErrorDetail[];

  constructor(
    readonly status: number,
    readonly envelope: Wire.ErrorEnvelope,
  ) {
    super(envelope.message);
    this.code = envelope.data.error;
    this.details = envelope.data.details ?? [];
  }

  get data(): Wire.ErrorEnvelope['data'] {
    return this.envelope.data;
  }
}

export interface ClientOptions {
  /** Where the service answers, e.g. http://127.0.0.1:3000 or the API Gateway URL. */
  baseUrl: string;
  /** An API token; sent as Authorization: Bearer. */
  token?: string | undefined;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch | undefined;
  /** Retries of reads and keyed writes answered 503 or 429. */
  retry?: RetryOptions | undefined;
  /** Each call's time limit, retries included, unless the call gives its own. */
  timeoutMs?: number | undefined;
}

/** What every call takes: a signal that cancels it, and a time limit (retries included); either rejects the call with the signal's reason. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

/**
 * A write's Idempotency-Key: by default a new random key per call, so that its retries (after a
 * 503 or 429) are safe and are made; pass your own to retry across restarts, or false to send
 * none, and then the write is never retried.
 */
export interface WriteOptions extends CallOptions {
  idempotencyKey?: string | false | undefined;
}

/** If-Match of an update or delete of one record by id: the etag getOneTagged gave (or several, or '*'); a changed record is a RecordgateError 412. */
export interface IfMatch {
  ifMatch?: string | ReadonlyArray<string> | undefined;
}

/** If-None-Match: '*' on create: an id that exists is a RecordgateError 412 instead of 409. */
export interface IfNoneMatch {
  ifNoneMatch?: '*' | undefined;
}

type Fields<M extends ModelTypes> = ReadonlyArray<FieldName<M>> | undefined;

export type CreateOne<M extends ModelTypes> = Omit<Wire.CreateRequest, 'data' | 'ids'> & { data: RecordData<M> };
export type CreateMany<M extends ModelTypes> = Omit<Wire.CreateRequest, 'data' | 'id'> & { data: RecordData<M>[] };
/** `fields` names the model's own fields, so a typo fails to compile and the answer's type follows the list. */
export type GetOneBody<M extends ModelTypes = UntypedModel, F extends Fields<M> = undefined> = Omit<Wire.GetOneRequest, 'fields' | 'filters'> & {
  filters: Filter<M>;
  fields?: F;
};
export type ListBody<M extends ModelTypes = UntypedModel, F extends Fields<M> = undefined> = Omit<Wire.ListRequest, 'fields' | 'filters' | 'order_by'> & {
  filters?: Filter<M>;
  order_by?: OrderKey<M> | [OrderKey<M>];
  fields?: F;
};
export type CountBody<M extends ModelTypes = UntypedModel> = Omit<Wire.CountRequest, 'filters'> & { filters?: Filter<M> };
export type AggregateBody<M extends ModelTypes = UntypedModel> = Omit<Wire.AggregateRequest, 'filters'> & { filters?: Filter<M> };
export type UpdateBody<M extends ModelTypes> = Omit<Wire.UpdateRequest, 'values' | 'filters'> & { filters: Filter<M>; values: UpdateValues<M> };
export type DeleteBody<M extends ModelTypes = UntypedModel> = Omit<Wire.DeleteRequest, 'filters'> & { filters: Filter<M> };

/** The service's counters are integers a JS number holds: plain numbers, unlike record data. */
export type ListAnswer<M extends ModelTypes, F extends Fields<M> = undefined> = Wire.ListPage & { items: ReadRecord<M, F>[] };
export type CountAnswer = Wire.CountAnswer;
/** Sums are exact: a big one is the parser's exact number, as record data is. */
export type AggregateAnswer = Exact<Wire.AggregateAnswer>;
export type UpdateAnswer = Wire.UpdateAnswer;
export type DeleteAnswer = Wire.DeleteAnswer;
export type ModelsAnswer = Exact<Wire.ModelsAnswer>;
export type HealthAnswer = Exact<Wire.HealthAnswer>;
export type TransactionAnswer = Exact<Wire.TransactionAnswer>;

/** One operation of a transaction on model M, typed as M's own writes are. */
export type TransactionOperation<M extends ModelTypes = UntypedModel> =
  | { op: 'create'; model: string; id?: string; data: RecordData<M> }
  | { op: 'update'; model: string; id: string; values: UpdateValues<M>; filters?: Filter<M> }
  | { op: 'delete'; model: string; id: string; filters?: Filter<M> }
  | { op: 'check'; model: string; id: string; filters: Filter<M> };

export interface ModelClient<M extends ModelTypes> {
  create(body: CreateOne<M>, options?: WriteOptions & IfNoneMatch): Promise<RecordOf<M>>;
  create(body: CreateMany<M>, options?: WriteOptions & IfNoneMatch): Promise<{ records: RecordOf<M>[] }>;
  getOne<const F extends Fields<M> = undefined>(body: GetOneBody<M, F>, options?: CallOptions): Promise<ReadRecord<M, F>>;
  /** getOne with the record's ETag, for the If-Match of the next write. */
  getOneTagged<const F extends Fields<M> = undefined>(body: GetOneBody<M, F>, options?: CallOptions): Promise<{ record: ReadRecord<M, F>; etag: string }>;
  list<const F extends Fields<M> = undefined>(body?: ListBody<M, F>, options?: CallOptions): Promise<ListAnswer<M, F>>;
  /** Every record the filters match, page after page (list's next_cursor), as `for await` asks for them. */
  all<const F extends Fields<M> = undefined>(body?: Omit<ListBody<M, F>, 'cursor'>, options?: CallOptions): AsyncGenerator<ReadRecord<M, F>, void, undefined>;
  count(body?: CountBody<M>, options?: CallOptions): Promise<CountAnswer>;
  /** A page of a declared aggregate's groups, each with its count and sums (POST /api/db/{model}/aggregate). */
  aggregate(body: AggregateBody<M>, options?: CallOptions): Promise<AggregateAnswer>;
  update(body: UpdateBody<M>, options?: WriteOptions & IfMatch): Promise<UpdateAnswer>;
  /** update with the record's new ETag, for the If-Match of the next write: null unless the filters name one id and it made or changed that record. */
  updateTagged(body: UpdateBody<M>, options?: WriteOptions & IfMatch): Promise<{ answer: UpdateAnswer; etag: string | null }>;
  delete(body: DeleteBody<M>, options?: WriteOptions & IfMatch): Promise<DeleteAnswer>;
}

export interface Client {
  db: {
    /** A model's generated ref (recordgate-client/models) for typed records; or a name, typed by the type argument (`model<Reaction>('reaction')`) or untyped. */
    model<M extends ModelTypes>(model: ModelRef<M>): ModelClient<M>;
    model<M extends ModelTypes = UntypedModel>(name: M['name']): ModelClient<M>;
  };
  /** Operations across models, applied all together or not at all (POST /api/db/transaction). */
  transaction(operations: ReadonlyArray<TransactionOperation>, options?: WriteOptions): Promise<TransactionAnswer>;
  models(options?: CallOptions): Promise<ModelsAnswer>;
  health(options?: CallOptions): Promise<HealthAnswer>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** One operation of a transaction, typed by its model: `operation(account, { op: 'update', id, values: { balance: 0 } })`. */
export const operation = <M extends ModelTypes>(model: ModelRef<M>, op: DistributiveOmit<TransactionOperation<M>, 'model'>): TransactionOperation =>
  ({ ...op, model: model.name }) as TransactionOperation;

/** Answers that are not the service's envelope (a proxy's HTML page, an empty body) still surface as a RecordgateError. */
function envelopeOf(status: number, text: string): { status?: unknown; data?: { error?: unknown } } {
  try {
    return parseJson(text) as { status?: unknown };
  } catch {
    return { status: 'error', message: `HTTP ${status}: the answer is not JSON`, data: { error: status >= 500 ? 'internal' : 'invalid_request' } } as never;
  }
}

/** A random UUID: crypto.randomUUID where the page is a secure context, else from getRandomValues. */
function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface Call {
  path: string;
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  options?: CallOptions;
  /** A read, or a write under a key: safe to send again. */
  retriable: boolean;
}

/** A typed client for the record API. Numbers travel exactly both ways. */
export function createClient(options: ClientOptions): Client {
  const send = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const attempts = Math.max(1, options.retry?.attempts ?? 3);
  const maxDelayMs = options.retry?.maxDelayMs ?? 10_000;

  async function exchange<T>({ path, method = 'POST', body, headers = {}, options: call = {}, retriable }: Call): Promise<{ data: T; headers: Headers }> {
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    const signals = [call.signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter((s) => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const init: RequestInit = {
      method,
      headers: { ...auth, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: stringifyJson(body) }),
      ...(signal === undefined ? {} : { signal }),
    };
    for (let attempt = 1; ; attempt++) {
      const response = await send(`${base}${path}`, init);
      const envelope = envelopeOf(response.status, await response.text());
      if (response.ok && envelope.status === 'success') return { data: envelope.data as T, headers: response.headers };
      if (!(retriable && attempt < attempts && asksRetry(response.status, envelope.data?.error))) {
        throw new RecordgateError(response.status, envelope as Wire.ErrorEnvelope);
      }
      await pause(retryDelayMs(retryAfterMs(response.headers.get('retry-after')), attempt, maxDelayMs), signal);
    }
  }

  const read = async <T>(path: string, body: unknown, call: CallOptions | undefined, method: 'GET' | 'POST' = 'POST') =>
    (await exchange<T>({ path, method, body, retriable: true, ...(call === undefined ? {} : { options: call }) })).data;

  /** A write's headers: its key (generated unless given or refused) and its preconditions. */
  const writeHeaders = ({ idempotencyKey, ifMatch, ifNoneMatch }: WriteOptions & IfMatch & IfNoneMatch = {}): Record<string, string> => {
    const key = idempotencyKey === undefined ? newKey() : idempotencyKey;
    return {
      ...(key === false ? {} : { 'idempotency-key': key }),
      ...(ifMatch === undefined ? {} : { 'if-match': typeof ifMatch === 'string' ? ifMatch : ifMatch.join(', ') }),
      ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }),
    };
  };
  const write = <T>(path: string, body: unknown, call: (WriteOptions & IfMatch & IfNoneMatch) | undefined) => {
    const headers = writeHeaders(call);
    return exchange<T>({ path, body, headers, retriable: 'idempotency-key' in headers, ...(call === undefined ? {} : { options: call }) });
  };

  type Untyped = ModelClient<UntypedModel>;
  const model = (target: ModelRef | string): Untyped => {
    const name = typeof target === 'string' ? target : target.name;
    const path = (operation: string) => `/api/db/${encodeURIComponent(name)}/${operation}`;
    const list = (body: unknown = {}, call?: CallOptions) => read<ListAnswer<UntypedModel>>(path('list'), body, call);
    return {
      create: (async (body: unknown, call?: WriteOptions & IfNoneMatch) => (await write(path('create'), body, call)).data) as Untyped['create'],
      getOne: ((body: unknown, call?: CallOptions) => read(path('get_one'), body, call)) as Untyped['getOne'],
      getOneTagged: (async (body: unknown, call?: CallOptions) => {
        const { data, headers } = await exchange({ path: path('get_one'), body, retriable: true, ...(call === undefined ? {} : { options: call }) });
        return { record: data, etag: headers.get('etag') ?? '' };
      }) as Untyped['getOneTagged'],
      list: list as Untyped['list'],
      all: async function* (body: object = {}, call?: CallOptions) {
        let cursor: string | null | undefined;
        do {
          const page = await list({ ...body, ...(cursor ? { cursor } : {}) }, call);
          yield* page.items;
          cursor = page.next_cursor;
        } while (cursor);
      } as Untyped['all'],
      count: (body = {}, call) => read(path('count'), body, call),
      aggregate: (body, call) => read(path('aggregate'), body, call),
      update: async (body, call) => (await write<UpdateAnswer>(path('update'), body, call)).data,
      updateTagged: async (body, call) => {
        const { data, headers } = await write<UpdateAnswer>(path('update'), body, call);
        return { answer: data, etag: headers.get('etag') };
      },
      delete: async (body, call) => (await write<DeleteAnswer>(path('delete'), body, call)).data,
    };
  };

  return {
    db: { model: model as Client['db']['model'] },
    transaction: async (operations, call) => (await write<TransactionAnswer>('/api/db/transaction', { operations }, call)).data,
    models: (call) => read('/api/db/models', undefined, call, 'GET'),
    health: (call) => read('/api/db/health', undefined, call, 'GET'),
  };
}
