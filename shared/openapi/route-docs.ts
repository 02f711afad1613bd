import * as z from 'zod';
// A named import: `z.core` as a value would carry every locale of zod into the bundle.
import { $ZodOptional } from 'zod/v4/core';
import {
  aggregateAnswerSchema,
  countAnswerSchema,
  createdSchema,
  deleteAnswerSchema,
  healthAnswerSchema,
  listAnswerSchema,
  modelsAnswerSchema,
  readRecordSchema,
  recordSchema,
  feedReplayAnswerSchema,
  feedStatusAnswerSchema,
  transactionAnswerSchema,
  updateAnswerSchema,
} from '../api/responses';
import { feedReplayRequest } from '../api/requests/feed-replay';
import { aggregateRequest } from '../api/requests/aggregate';
import { countRequest } from '../api/requests/count';
import { createRequest } from '../api/requests/create';
import { deleteRequest } from '../api/requests/delete';
import { getOneRequest } from '../api/requests/get-one';
import { listRequest } from '../api/requests/list';
import { documentedSchema } from '../api/field-rules/described';
import { descriptionOf, fieldsSchema, idSchema, jsonObject } from '../api/requests/common';
import { transactionRequest } from '../api/requests/transaction';
import { updateRequest } from '../api/requests/update';
import { DOCS_ASSET_NAMES } from '../docs/assets';
import type { Scope } from '../auth/scopes';
import type { ErrorCode } from '../errors';
import type { Route } from '../manifest/routes';
import { LIMITS } from '../limits';
import { SYSTEM_FIELDS, sortableFields, typesOf, type Model } from '../models/model';
// The receiver's own schema: the document shows what it checks (one schema, not two to keep alike).
import { onebotEventSchema } from '../onebot/event';
import { exampleData } from './examples';
// The transaction's own limit, apart from the API's: DynamoDB's.
import { AWS_LIMITS } from '../limits';
import { filterSchemaName } from './filter-schema';
import { shownAs } from './json-schema';

/** A request body's schema, in the full zod API or zod/mini (shared/api/requests/): both check with safeParse. */
export type RequestSchema = z.core.$ZodType & { safeParse(data: unknown): { success: boolean; error?: z.core.$ZodError } };

/** What the document says about one operation, before it is turned into OpenAPI. */
export interface OperationDoc {
  description?: string;
  /** The JSON body, checked by this zod schema (shown with io: input); `name` for a schema all models share. */
  request?: { schema: RequestSchema; examples: Record<string, unknown>; name?: string };
  /** The success answer: `data` of the envelope for the JSON API, a raw document otherwise. */
  success: {
    status: number;
    description: string;
    data?: z.ZodType;
    /** Schemas inside `data` that other answers hold too, by component name: shown once, referred to elsewhere. */
    components?: Record<string, z.core.$ZodType>;
    raw?: { mediaType: string; schema: Record<string, unknown> };
    /** Headers of the answer, as OpenAPI header objects by name. */
    headers?: Record<string, Record<string, unknown>>;
  };
  /** Other answers that are not errors, as OpenAPI response objects by status. */
  more?: Record<number, Record<string, unknown>>;
  errors: ErrorCode[];
  /** What a code means on this operation, where it differs from ERROR_MEANING. */
  meanings?: Partial<Record<ErrorCode, string>>;
  parameters?: Array<Record<string, unknown>>;
  /** The scope it takes where that is not its route's: delete on a model without an owner rule takes admin (shared/access/scopes.ts). */
  scope?: Scope;
}

const BODY_ERRORS: ErrorCode[] = [
  'malformed_json',
  'invalid_request',
  'payload_too_large',
  'unknown_model',
  'internal',
  'secret_unavailable',
  'misconfigured',
  'model_layout_mismatch',
  'database_unavailable',
];
const FILTER_ERRORS: ErrorCode[] = ['invalid_filter', 'unknown_field'];

/** The writing operations take an Idempotency-Key (shared/idempotency/middleware.ts). */
const IDEMPOTENT = {
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: LIMITS.maxIdempotencyKeyLength },
      description:
        `A key of your own (a UUID, say) that makes a retry safe for ${LIMITS.idempotencyKeepSeconds / 3600} hours: the same key with the same ` +
        'request answers the first answer again (header Idempotent-Replayed: true) and writes nothing. Kept per caller.',
    },
  ],
};
/** The strong entity tag of a record (shared/store/write/entity-tag.ts), as get_one answers it and a 412 names the current one. */
const etagHeader = (when: string) => ({
  ETag: {
    description: `${when}The record's strong entity tag: send it back as If-Match to update or delete this record only as it was read`,
    schema: { type: 'string', example: '"3-Qm9hcmQxMjM0NTY3"' },
  },
});
const ETAG_HEADER = etagHeader('');
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description:
    "Entity tags from get_one's ETag (comma-separated, any one may match; strong comparison), or *: the write applies only to the record as it was " +
    'read, else 412 precondition_failed with its current tag and nothing written. A missing record fails it. Needs filters that name one id by equality (else 400).',
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string', enum: ['*'] },
  description:
    'Only *: create only records that do not exist, which every create does; an id that exists then answers 412 precondition_failed instead of 409 conflict.',
};

// A write whose answer the database never gave may have been applied: outcome_unknown says so, and the key makes the retry safe.
const IDEMPOTENCY_ERRORS: ErrorCode[] = ['idempotency_in_flight', 'idempotency_answer_not_kept', 'idempotency_key_reused', 'outcome_unknown'];

const ownDeleteHelp = (owner: string) =>
  `The model's owner rule keeps a caller to its own records: write deletes the caller's own (those whose ${owner} holds its subject), admin anyone's.`;
const ADMIN_DELETE_HELP = 'Deleting takes the admin scope on this model, which has no owner rule: a token able to wipe a model is handed out on purpose.';

/** What update and delete by filter both answer: their guards, and If-Match of a write by id. */
const BULK_WRITE_ERRORS: ErrorCode[] = [
  ...BODY_ERRORS,
  ...FILTER_ERRORS,
  'forbidden',
  'invalid_cursor',
  'empty_filter',
  'too_many_matches',
  'matches_all',
  'precondition_failed',
];

const WHOLE_MODEL_HELP =
  'An empty filter, or one that matches every record of a model holding 2 or more (409 matches_all), needs allow_all, which needs the admin scope.';
const FILTERS_HELP =
  'filters are Mongo-style: `{"field": value}` is equality, `{"field": {"$gt": 1}}` an operator ' +
  '($eq $ne $gt $gte $lt $lte $in $nin $between $exists $begins_with $contains), and $and/$or/$not combine them. ' +
  '`id` and the system fields can be filtered on. $ne and $nin keep records where the field is missing.';

const OPERATORS_HELP =
  'Operators: $set (a dotted path sets one nested field), $unset, $inc (numbers, exact), $min, $max, $push and $addToSet (one element or {"$each": [...]}), ' +
  '$pull (removes elements equal to the operand), $setOnInsert (with upsert only). A plain field replaces its value whole, an object too.';

/** A field's schema without its optional wrapper. */
const unwrapped = (field: z.core.$ZodType): z.core.$ZodType => (field instanceof $ZodOptional ? field._zod.def.innerType : field);

/**
 * The model's fields, each optional (an optional field may be null, which removes it), beside
 * the update operators, each naming only the fields whose kind takes it ($inc numbers, $push
 * arrays and their elements). Operators also take dotted paths into object fields, so their
 * objects admit further keys; the service checks each path against the model.
 */
function valuesSchema(model: Model) {
  const fields = Object.entries(documentedSchema(model).shape);
  const whole = Object.fromEntries(fields.map(([name, field]) => [name, field instanceof $ZodOptional ? z.nullable(field) : z.optional(field)]));
  const kinds = (name: string) => typesOf(model.jsonSchema.properties[name] ?? {});
  const elementOf = (field: z.core.$ZodType) => (unwrapped(field)._zod.def as unknown as { element: z.core.$ZodType }).element;
  const arrays = fields.filter(([name, field]) => kinds(name).includes('array') && unwrapped(field)._zod.def.type === 'array');
  const numbers = fields.filter(([name]) => kinds(name).some((kind) => kind === 'number' || kind === 'integer'));
  const each = (element: z.core.$ZodType) => z.union([element, z.strictObject({ $each: z.array(element) })]);
  const paths = (shape: Record<string, z.core.$ZodType>) => z.optional(z.looseObject(shape));
  const onArrays = (operand: (element: z.core.$ZodType) => z.core.$ZodType) =>
    z.optional(z.strictObject(Object.fromEntries(arrays.map(([name, field]) => [name, z.optional(operand(elementOf(field)))]))));
  return z
    .strictObject({
      ...whole,
      $set: paths(whole),
      $setOnInsert: paths(Object.fromEntries(fields.map(([name, field]) => [name, z.optional(field)]))),
      $unset: paths({}),
      $inc: paths(Object.fromEntries(numbers.map(([name]) => [name, z.optional(z.number())]))),
      $min: paths({}),
      $max: paths({}),
      $push: onArrays(each),
      $addToSet: onArrays(each),
      $pull: onArrays((element) => element),
    })
    .describe(`${descriptionOf(updateRequest.shape.values)}. ${OPERATORS_HELP}`);
}

/** The names `fields` takes for a model: as checkFields (shared/store/read/projection.ts) knows them. */
const fieldNames = (model: Model) => ['id', ...Object.keys(model.storedSchema.properties), ...Object.keys(SYSTEM_FIELDS).filter((name) => name !== 'id')];

type RequestShape = Record<string, z.core.$ZodType>;

/**
 * A request body as `model` takes it: filters as the model's filter schema, order_by and fields
 * as the names it accepts. The service checks these with the filter parser and the store (which
 * answer unknown_field, invalid_filter and invalid_order_by); the document names them, so a
 * generated client refuses a misspelt field before sending it.
 */
function forModel(request: { shape: RequestShape }, model: Model) {
  const filters = shownAs(jsonObject, { $ref: `#/components/schemas/${filterSchemaName(model)}` });
  const sortKey = z.enum(sortableFields(model).flatMap((f) => [f, `-${f}`]));
  const named: RequestShape = {
    filters: request.shape.filters instanceof $ZodOptional ? z.optional(filters) : filters,
    order_by: z.optional(z.union([sortKey, z.array(sortKey).max(1)])).describe(descriptionOf(request.shape.order_by ?? sortKey)),
    fields: z
      .optional(
        z
          .array(z.enum(fieldNames(model)))
          .min(1)
          .max(LIMITS.maxFields),
      )
      .describe(descriptionOf(fieldsSchema)),
  };
  // Property order as the service's own schema has it.
  return z.strictObject(Object.fromEntries(Object.entries(request.shape).map(([key, schema]) => [key, named[key] ?? schema])));
}

/** A filter to show in examples: on the first indexed field, as a user would filter, else on id. */
function exampleFilter(model: Model): Record<string, unknown> {
  const sample = exampleData(model);
  const field = model.indexed.find((f) => sample?.[f] !== undefined);
  return field ? { [field]: sample![field] } : { id: 'example-1' };
}

/** get_one and list answer the same projection of a record. */
const readComponents = (model: Model) => ({ [`${model.name}_read_record`]: readRecordSchema(model) });

/** The record operations, for one model: its own schemas in bodies and answers. */
/** An aggregate request to show in examples: the model's first aggregate, whole and narrowed to its first group field's example value. */
function aggregateExamples(model: Model): Record<string, unknown> {
  const [name, definition] = Object.entries(model.aggregates)[0] ?? [];
  if (!name || !definition) return {};
  const field = definition.group_by[0];
  const value = field === undefined ? undefined : exampleData(model)?.[field];
  return { all: { name }, ...(value === undefined ? {} : { one_group: { name, filters: { [field]: value } } }) };
}

export const RECORD_OPERATIONS: Record<'create' | 'get_one' | 'list' | 'count' | 'aggregate' | 'update' | 'delete', (model: Model) => OperationDoc> = {
  create: (model) => {
    const sample = exampleData(model);
    const documented = documentedSchema(model);
    const data = z.union([documented, z.array(documented).min(1).max(LIMITS.maxCreateBatch)]);
    return {
      description:
        `Validates against the ${model.name} schema (422 lists every problem, nothing is stored). ` +
        `A batch of up to ${LIMITS.maxCreateBatch} is all or nothing.`,
      request: {
        schema: z.strictObject({ ...createRequest.shape, data: data.describe(descriptionOf(createRequest.shape.data)) }),
        examples: sample
          ? { one: { data: sample }, with_id: { id: 'example-1', data: sample }, batch: { data: [sample, sample], ids: ['example-2', 'example-3'] } }
          : {},
      },
      success: {
        status: 201,
        description: 'Created',
        data: createdSchema(model),
        components: { [`${model.name}_record`]: recordSchema(model) },
        headers: etagHeader('Only for one record (none for a batch). '),
      },
      errors: [...BODY_ERRORS, 'forbidden', 'conflict', 'precondition_failed', 'validation_error', ...IDEMPOTENCY_ERRORS],
      meanings: { precondition_failed: 'If-None-Match: * and a record with that id exists (data.ids); nothing was written' },
      parameters: [...IDEMPOTENT.parameters, IF_NONE_MATCH],
    };
  },
  get_one: (model) => ({
    description: `The first record in id order that matches. ${FILTERS_HELP}`,
    request: { schema: forModel(getOneRequest, model), examples: { by_id: { filters: { id: 'example-1' } } } },
    success: {
      status: 200,
      description: 'The record; with fields, only id and the fields named',
      data: readRecordSchema(model),
      components: readComponents(model),
      headers: ETAG_HEADER,
    },
    errors: [...BODY_ERRORS, ...FILTER_ERRORS, 'not_found'],
  }),
  list: (model) => ({
    description:
      `A page of at most limit records and a next_cursor (null at the end); a page can be short while ` +
      `next_cursor is not null. order_by: id or an indexed field (${model.indexed.join(', ') || 'none'}). ${FILTERS_HELP}`,
    request: {
      schema: forModel(listRequest, model),
      examples: { all: { limit: 10 }, filtered: { filters: exampleFilter(model), order_by: '-id', limit: 10 } },
    },
    success: { status: 200, description: 'A page of records', data: listAnswerSchema(model), components: readComponents(model) },
    errors: [...BODY_ERRORS, ...FILTER_ERRORS, 'invalid_order_by', 'invalid_cursor', 'index_building'],
  }),
  count: (model) => ({
    description:
      `Exact: reads every matching partition page, except for a filter that is exactly one group of a ready aggregate that counts ` +
      `(equality on each of its group fields), answered from its counter in one read (data.aggregate names it; counters follow the change feed, seconds behind; consistent: true reads the records). ${FILTERS_HELP}`,
    request: { schema: forModel(countRequest, model), examples: { all: {}, filtered: { filters: exampleFilter(model) } } },
    success: { status: 200, description: 'The count', data: countAnswerSchema },
    errors: [...BODY_ERRORS, ...FILTER_ERRORS],
  }),
  aggregate: (model) => ({
    description:
      `The groups of an aggregate ${model.name} declares (${Object.keys(model.aggregates).join(', ') || 'none'}), page by page in group key order, each with its count and exact sums. ` +
      'Counters are kept from the change feed: a write shows in them within seconds. filters: equality on group fields only. ' +
      'An aggregate declared on a model that held records answers 503 aggregate_building until they are all counted (data.progress).',
    request: { schema: aggregateRequest, examples: aggregateExamples(model) },
    success: { status: 200, description: 'A page of groups', data: aggregateAnswerSchema },
    errors: [...BODY_ERRORS, ...FILTER_ERRORS, 'forbidden', 'validation_error', 'invalid_cursor', 'aggregate_building'],
    meanings: {
      validation_error:
        'No aggregate of this name (data.available lists them), or a filter on a field it does not group by, or other than equality (data.details)',
      forbidden: 'The model keeps each caller to its own records and the aggregate does not group by the owner field, so only admin reads it',
    },
  }),
  update: (model) => {
    const sample = exampleData(model);
    const field = Object.keys(sample ?? {})[0];
    return {
      description:
        `Every matched record with its new values is validated first; one invalid result is a 422 and nothing is written. ` +
        `${WHOLE_MODEL_HELP} ${FILTERS_HELP}`,
      request: {
        schema: z.strictObject({ ...forModel(updateRequest, model).shape, values: valuesSchema(model) }),
        examples: field
          ? {
              by_id: { filters: { id: 'example-1' }, values: { [field]: sample![field] } },
              capped: { filters: exampleFilter(model), values: { [field]: sample![field] }, max_affected: 10 },
            }
          : {},
      },
      success: {
        status: 200,
        description: 'How many changed',
        data: updateAnswerSchema,
        headers: etagHeader(
          'Only when the filters name one id by equality and this update made or changed that record: its new tag, as get_one would answer it. ',
        ),
      },
      errors: [...BULK_WRITE_ERRORS, 'record_busy', 'validation_error', ...IDEMPOTENCY_ERRORS],
      parameters: [...IDEMPOTENT.parameters, IF_MATCH],
    };
  },
  delete: (model) => ({
    description: `${model.owner ? ownDeleteHelp(model.owner) : ADMIN_DELETE_HELP} ${WHOLE_MODEL_HELP} ${FILTERS_HELP}`,
    ...(model.owner ? {} : { scope: 'admin' as const }),
    request: {
      schema: forModel(deleteRequest, model),
      examples: { by_id: { filters: { id: 'example-1' } }, capped: { filters: { id: { $begins_with: 'example-' } }, max_affected: 10 } },
    },
    success: { status: 200, description: 'How many were deleted', data: deleteAnswerSchema },
    errors: [...BULK_WRITE_ERRORS, ...IDEMPOTENCY_ERRORS],
    parameters: [...IDEMPOTENT.parameters, IF_MATCH],
  }),
};

/**
 * A transaction's body as the models take it: each operation one of its model's (data, values
 * and filters in that model's schemas; a read-only model takes checks only), so a generated
 * client types each operation by its model. The service checks the same with its one schema
 * (shared/api/requests/transaction.ts) and each model.
 */
function transactionRequestFor(models: ReadonlyArray<Model>) {
  const variants = models.flatMap((model) => {
    const name = z.literal(model.name);
    const filters = shownAs(jsonObject, { $ref: `#/components/schemas/${filterSchemaName(model)}` });
    const check = z.strictObject({ op: z.literal('check'), model: name, id: idSchema, filters });
    if (model.access === 'read_only') return [check];
    return [
      z.strictObject({ op: z.literal('create'), model: name, id: z.optional(idSchema), data: model.schema }),
      z.strictObject({ op: z.literal('update'), model: name, id: idSchema, values: valuesSchema(model), filters: z.optional(filters) }),
      z.strictObject({ op: z.literal('delete'), model: name, id: idSchema, filters: z.optional(filters) }),
      check,
    ];
  });
  const operations = z.array(z.union(variants)).min(1).max(AWS_LIMITS.transactionActions);
  return z.strictObject({ operations: operations.describe(descriptionOf(transactionRequest.shape.operations)) });
}

/** The routes that are not per model, given the models the document lists (a transaction's operations name them). */
export const SERVICE_OPERATIONS: Record<string, (route: Route, models: ReadonlyArray<Model>) => OperationDoc> = {
  models: () => ({
    success: {
      status: 200,
      description: 'The models, with their JSON Schema, indexed and sortable fields, ttl field, and the layout of their stored records (index states)',
      data: modelsAnswerSchema,
    },
    errors: ['internal', 'database_unavailable'],
  }),
  health: () => ({
    description:
      'One consistent point read. Open to everyone, for load balancers and uptime checks; a bearer token with the read scope also gets the OneBot bots and their heartbeat state.',
    success: { status: 200, description: 'The table answers', data: healthAnswerSchema },
    errors: ['misconfigured', 'database_unavailable'],
  }),
  onebot: () => ({
    description:
      "The OneBot 11 HTTP POST receiver: point the bot implementation's post_url here. It authenticates with " +
      'X-Signature (HMAC-SHA1 of the raw body with the shared secret), not with a bearer token. A re-sent event is stored once (docs/onebot.md, "Duplicates").',
    request: {
      name: 'onebot_post_body',
      schema: onebotEventSchema,
      examples: {
        heartbeat: {
          time: 1700000000,
          self_id: 10001,
          post_type: 'meta_event',
          meta_event_type: 'heartbeat',
          status: { online: true, good: true },
          interval: 5000,
        },
      },
    },
    // 200 `{}` rather than 204 for "nothing to do": LLOneBot warns on every empty answer (README).
    success: {
      status: 200,
      description:
        'Stored (or kept, while the database is unreachable, and stored later): the quick operation for the sender (reply, approve, ...), {} for none',
      raw: {
        mediaType: 'application/json',
        schema: { type: 'object', description: 'A OneBot 11 quick operation', examples: [{ reply: 'pong', auto_escape: false }, {}] },
      },
    },
    parameters: [
      { name: 'X-Self-ID', in: 'header', required: true, schema: { type: 'string' }, description: 'The bot account; equals self_id' },
      {
        name: 'X-Signature',
        in: 'header',
        required: false,
        schema: { type: 'string', pattern: '^sha1=[0-9a-fA-F]{40}$' },
        description: 'sha1=<hex HMAC-SHA1(secret, raw body)>; required when a secret is configured',
      },
    ],
    errors: ['malformed_json', 'invalid_request', 'unauthorized', 'forbidden', 'payload_too_large', 'internal', 'misconfigured', 'database_unavailable'],
    // A sender is checked by its signature and bot id, never by a bearer token (shared/onebot/receive.ts).
    meanings: {
      invalid_request:
        'The X-Self-ID header is missing, or the body is not a OneBot 11 event: empty, not an object, no post_type, nested too deep, or a key that cannot be stored',
      unauthorized: 'A secret is configured and the X-Signature header is missing',
      forbidden: "The X-Signature does not match the body, the bot (X-Self-ID) is not in ONEBOT_SELF_IDS, or the event's self_id names another bot",
      misconfigured:
        'The delivery could not be kept either (the queue or bucket is missing or not granted); a table that is missing, not granted or not answering alone is answered 200 and the delivery kept',
      database_unavailable:
        'The delivery could not be kept either (the queue did not answer); the database alone being down is answered 200 and the delivery kept',
    },
  }),
  transaction: (_route, models) => ({
    description:
      `Up to ${AWS_LIMITS.transactionActions} operations (create, update, delete, check) across any models, applied all together as one DynamoDB ` +
      'TransactWriteItems, or not at all. Each operation takes the scope its own route takes: write, for a delete write on a model with an owner rule and admin elsewhere, read for a check. ' +
      'A refused operation is named in the answer (details[].path operations.<index>); contention alone is retried, never answered (docs/record-api.md, "Transactions").',
    request: {
      schema: transactionRequestFor(models),
      // On the sample model, which a team's deployment serves only when asked (catalog/served-models.ts).
      examples: models.some((m) => m.name === 'reaction')
        ? {
            transfer: {
              operations: [
                { op: 'update', model: 'reaction', id: 'example-1', values: { content: 'heart' }, filters: { content: 'laugh' } },
                { op: 'create', model: 'reaction', data: { user_id: 7, content: 'heart' } },
                { op: 'check', model: 'reaction', id: 'example-2', filters: {} },
              ],
            },
          }
        : {},
    },
    success: { status: 200, description: 'Every operation was applied', data: transactionAnswerSchema },
    errors: [...BODY_ERRORS, ...FILTER_ERRORS, 'forbidden', 'conflict', 'validation_error', 'record_busy', ...IDEMPOTENCY_ERRORS],
    meanings: {
      conflict: 'An operation was refused (a create of an existing id, a missing record, filters not matched): nothing was written; details name it',
      invalid_request: 'The body is not a transaction: 0 or more than 100 operations, two on one record, an unknown op; details name the path',
      validation_error: "An operation's data or values are not valid for its model: nothing was written; details name the path",
      record_busy: 'Other transactions held its records until the function ran out of time; nothing was written. Retry',
    },
    ...IDEMPOTENT,
  }),
  feed_status: () => ({
    description:
      'Each webhook subscription of SUBSCRIPTIONS: its pending deliveries, its dead letters (how many, and the newest with how their attempts ended) and the last delivery its endpoint acknowledged (docs/feed.md, "Dead letters and replay").',
    success: { status: 200, description: "The subscriptions' delivery state", data: feedStatusAnswerSchema },
    errors: ['internal', 'secret_unavailable', 'misconfigured', 'database_unavailable'],
  }),
  feed_replay: () => ({
    description:
      'Queues changes again for one webhook subscription, each with its own change_id (its webhook-id), so a receiver drops what it already has: ' +
      '`{"dead_letters": true}` its dead letters, oldest first, each removed once queued; `{"since": "<ISO time>", "until": "<ISO time>"}` every change of the stream in that range ' +
      "(until absent: now) that the subscription matches, in commit order, within the stream's 24 hours. A range that does not fit the function's time stops between pages " +
      'and answers `next_cursor`; `{"cursor": "<next_cursor>"}` queues the rest. A change already waiting to be delivered is not queued twice.',
    parameters: [
      {
        name: 'subscription',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' },
        description: "The subscription's name in SUBSCRIPTIONS",
      },
    ],
    request: {
      schema: feedReplayRequest,
      examples: {
        dead_letters: { dead_letters: true },
        since: { since: '2026-11-27T08:00:00Z' },
        range: { since: '2026-11-27T08:00:00Z', until: '2026-11-27T09:00:00Z' },
        cursor: { cursor: 'eyJzdWJzY3JpcHRpb24iOiJoZWFydHMiLCJmcm9tIjoxNzk1NzY2NDAwLCJ1bnRpbCI6MTc5NTc3MDAwMCwiZG9uZSI6W119' },
      },
    },
    success: { status: 200, description: 'What was queued again', data: feedReplayAnswerSchema },
    errors: [
      'malformed_json',
      'invalid_request',
      'invalid_cursor',
      'not_found',
      'payload_too_large',
      'internal',
      'secret_unavailable',
      'misconfigured',
      'database_unavailable',
    ],
    meanings: {
      invalid_request:
        "The body is not one of dead_letters: true, since (an ISO 8601 time, with until not before it) or cursor; since is older than the stream's 24 hours; or the subscription sends to an EventBridge bus",
      invalid_cursor: 'The cursor is not a next_cursor a replay of this subscription answered, or the stream no longer keeps where it stopped (24 hours)',
      not_found: 'SUBSCRIPTIONS has no subscription of that name',
    },
  }),
  openapi: () => ({
    description: 'Generated from the same zod schemas that check requests. Import it into Postman, API Gateway or a client generator.',
    success: {
      status: 200,
      description: 'OpenAPI 3.1',
      raw: { mediaType: 'application/json', schema: { type: 'object', description: 'An OpenAPI 3.1 document' } },
    },
    errors: [],
  }),
  docs: (route) =>
    route.path.includes('{asset}')
      ? {
          parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string', enum: [...DOCS_ASSET_NAMES] } }],
          success: { status: 200, description: 'The file', raw: { mediaType: '*/*', schema: { type: 'string', format: 'binary' } } },
          errors: ['route_not_found'],
        }
      : {
          description: 'Swagger UI, served from this service (nothing from a CDN). Use Authorize to set a bearer token.',
          success: { status: 200, description: 'The page', raw: { mediaType: 'text/html', schema: { type: 'string' } } },
          errors: [],
        },
};
