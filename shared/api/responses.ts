import * as z from 'zod';
import { documentedSchema } from './field-rules/described';
import { FEED_NEWEST_DEAD_LETTERS } from '../limits';
import { SYSTEM_FIELDS, type Model, type ModelAccess, type ModelSchema, type SystemField } from '../models/model';

/**
 * The `data` of each success answer, as zod schemas: the OpenAPI document is generated from
 * them and the typed client takes its answer types from them. A record's schema is its model's
 * own schema plus id and the system fields.
 */
export type SystemValues = { [K in SystemField]: (typeof SYSTEM_FIELDS)[K]['type'] extends 'integer' ? number : string };

// Built from SYSTEM_FIELDS itself, so the record schema cannot drift from what the store writes.
const systemShape = Object.fromEntries(Object.entries(SYSTEM_FIELDS).map(([name, schema]) => [name, z.fromJSONSchema(schema)])) as {
  [K in SystemField]: z.ZodType<SystemValues[K]>;
};

export type RecordSchema<S extends ModelSchema> = z.ZodObject<S['shape'] & typeof systemShape, z.core.$strict>;

// One schema object per model, so the OpenAPI document can name it once and refer to it.
const records = new WeakMap<Model, z.ZodObject>();

export function recordSchema<S extends ModelSchema>(model: Model<S>): RecordSchema<S> {
  // Each ruled field says its rule (read-only, or shown only to some callers: then absent for the rest, and optional by defineModel).
  if (!records.has(model)) {
    const { id, ...stamps } = systemShape;
    records.set(
      model,
      z.strictObject({ id, ...documentedSchema(model).shape, ...stamps }).describe(`A ${model.name} record: id, its fields, the system fields`),
    );
  }
  // A spread of a generic shape loses its keys to TypeScript; the object has exactly these.
  return records.get(model) as RecordSchema<S>;
}

const projectionOf = <S extends ModelSchema>(model: Model<S>) =>
  recordSchema(model)
    .partial()
    .required({ id: true })
    .describe(`A ${model.name} record as read: every field, or with \`fields\` only id and the fields named that the record has`);

type ReadRecordSchema<S extends ModelSchema> = ReturnType<typeof projectionOf<S>>;

const reads = new WeakMap<Model, z.ZodObject>();

/**
 * A record as get_one and list answer it: with `fields`, only id and the fields named that the
 * record has are present (toRecord in shared/store/read/projection.ts), so id is the one property it always has.
 */
export function readRecordSchema<S extends ModelSchema>(model: Model<S>): ReadRecordSchema<S> {
  if (!reads.has(model)) reads.set(model, projectionOf(model));
  return reads.get(model) as ReadRecordSchema<S>;
}

export function createdSchema<S extends ModelSchema>(model: Model<S>) {
  const record = recordSchema(model);
  return z.union([record, z.strictObject({ records: z.array(record) })]).describe('The record, or {records} for an array');
}

export function listAnswerSchema<S extends ModelSchema>(model: Model<S>) {
  return z.strictObject({
    items: z.array(readRecordSchema(model)),
    next_cursor: z.string().nullable().describe('Send as cursor for the next page; null when there is nothing more'),
    scanned: z.int().min(0).describe('Records read to answer'),
  });
}

const counter = z.int().min(0);

export const countAnswerSchema = z.strictObject({
  count: counter,
  scanned: counter,
  aggregate: z
    .string()
    .optional()
    .describe(
      "Present when the count was read from this aggregate's counter: the filter was exactly one of its groups. Counters follow the change feed, so a write shows in them within seconds, not at once (send consistent: true for a count of the records themselves)",
    ),
});

/** One group of an aggregate: its values by group field, its count if the aggregate counts, the exact sum of each summed field. */
export const groupSchema = z.strictObject({
  key: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .describe('The group fields and the values this group holds (null: the field is missing)'),
  count: counter.optional().describe('Records in the group, where the aggregate counts'),
  sum: z.record(z.string(), z.number()).optional().describe('Exact sum of each summed field over the group (records without a number there add nothing)'),
});

export const aggregateAnswerSchema = z.strictObject({
  groups: z.array(groupSchema).describe('Groups in group key order; a group no record is in any more is never answered'),
  next_cursor: z.string().nullable().describe('Send as cursor for the next page; null when there is nothing more'),
});

const bulkProgress = {
  matched: counter.describe('Records that matched when the call began (after the cursor, if one was sent)'),
  skipped: counter.describe('Reached, but changed by another writer so that it stopped matching'),
  unknown: counter
    .optional()
    .describe(
      "Present when some records' writes may or may not have landed (their answers were lost): what changed is between the count and the count plus this",
    ),
  complete: z.boolean().describe("false: the call stopped before the function's deadline; the records not reached are unchanged"),
  next_cursor: z.string().nullable().describe('When complete is false: send the same request with this cursor to go on; null otherwise'),
};

export const updateAnswerSchema = z.strictObject({
  updated: counter,
  ...bulkProgress,
  upserted: z.boolean().optional().describe('Only with upsert: true when the record was created, false when it was updated'),
});

export const deleteAnswerSchema = z.strictObject({ deleted: counter, ...bulkProgress });

const listedAccess = ['read_write', 'read_only'] as const satisfies ReadonlyArray<ModelAccess>;

export const modelsAnswerSchema = z.strictObject({
  models: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string(),
      access: z.enum(listedAccess),
      schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the record data'),
      system_fields: z.record(z.string(), z.unknown()).describe('JSON Schema of id and the system fields'),
      indexed: z.array(z.string()),
      sortable: z.array(z.string()).describe('Values order_by accepts (prefix - for descending)'),
      shards: z.int().min(1),
      ttl: z
        .string()
        .nullable()
        .describe('The field of epoch seconds from which a record is expired: never answered, counted or matched, then deleted; null: records never expire'),
      rules: z
        .strictObject({
          owner: z
            .string()
            .optional()
            .describe('The field holding the subject of the caller that created each record: a caller without admin reaches only its own'),
          tenant: z
            .strictObject({ field: z.string(), claim: z.string() })
            .optional()
            .describe("The field naming each record's tenant, from the caller's claim: no caller reaches another tenant's records"),
          read_only: z.array(z.string()).optional().describe('Fields only the service sets: a request naming one is 403'),
          visible_to: z
            .record(z.string(), z.union([z.strictObject({ scope: z.enum(['read', 'write', 'admin']) }), z.strictObject({ claim: z.string() })]))
            .optional()
            .describe('Fields shown only to callers with this scope or claim; to others they do not exist (this caller sees each one listed)'),
        })
        .describe("The model's access rules as they apply to this caller (docs/security.md)"),
      layout: z
        .strictObject({
          state: z.enum(['ready', 'building', 'mismatch']).describe('mismatch: the definition changed in a way the stored records cannot follow'),
          indexes: z.array(
            z.strictObject({
              field: z.string(),
              index: z.string().describe('The index slot (GSI) the field takes'),
              state: z.enum(['ready', 'building']).describe('building: not read through until its entries are written for every stored record'),
            }),
          ),
          progress: z
            .strictObject({ records_done: counter, shard: counter, shards: z.int().min(1) })
            .optional()
            .describe('While an index builds: records done so far, the shard being filled (from 0)'),
          change: z.string().optional().describe('When mismatch: what changed'),
          fix: z.string().optional().describe('When mismatch: what to do'),
        })
        .describe("How the model's stored records are laid out (docs/architecture.md, Changing a model)"),
      aggregates: z
        .array(
          z.strictObject({
            name: z.string(),
            group_by: z.array(z.string()),
            count: z.boolean(),
            sum: z.array(z.string()),
            state: z
              .enum(['ready', 'building', 'mismatch'])
              .describe(
                'building: counting the records stored before it was declared (aggregate answers 503); mismatch: its counters were kept for another definition',
              ),
            progress: z
              .strictObject({ records_done: counter, shard: counter, shards: z.int().min(1) })
              .optional()
              .describe('While it builds: records counted so far, the shard being read (from 0)'),
          }),
        )
        .describe('The aggregates the caller may read (POST /api/db/{model}/aggregate), none naming a field hidden from it'),
    }),
  ),
});

const maybe = <T extends z.ZodType>(schema: T) => schema.nullable().describe('null until a heartbeat says');

export const healthAnswerSchema = z.strictObject({
  database: z.literal('ok'),
  latency_ms: z.number().min(0),
  table: z.string(),
  bots: z
    .array(
      z.strictObject({
        self_id: z.union([z.number(), z.string()]),
        online: maybe(z.boolean()),
        good: maybe(z.boolean()),
        last_heartbeat: maybe(z.iso.datetime()),
        interval_ms: maybe(z.number()),
        overdue: z.boolean().describe('No heartbeat for several intervals'),
      }),
    )
    .optional()
    .describe(
      'The OneBot bot accounts seen, from their lifecycle and heartbeat events. Only for a caller whose bearer token has the read scope (or, on the local server without API_TOKENS, a loopback caller); absent for everyone else.',
    ),
});

const storedRecord = z.looseObject({ id: z.string() }).describe("The record as stored right after the transaction: id, its model's fields, the system fields");

export const transactionAnswerSchema = z.strictObject({
  results: z
    .array(
      z.union([
        z.strictObject({ op: z.enum(['create', 'update']), record: storedRecord }),
        z.strictObject({ op: z.literal('delete'), id: z.string(), deleted: z.literal(true) }),
        z.strictObject({ op: z.literal('check'), id: z.string(), check: z.literal(true) }),
      ]),
    )
    .describe("Each operation's result, in the request's order"),
});

const deadLetterSchema = z.strictObject({
  change_id: z.string().describe("The change's id: its webhook-id, the same when it is replayed"),
  model: z.string(),
  tenant: z.string().optional().describe('Models with a tenant rule only'),
  id: z.string(),
  op: z.enum(['create', 'update', 'delete']),
  version: counter,
  attempts: counter.describe('Attempts made before it became a dead letter'),
  last_failure: z.string().describe("The last attempt's status or error (never a header)"),
  at: z.iso.datetime().describe('When it became a dead letter'),
});

export const feedStatusAnswerSchema = z.strictObject({
  subscriptions: z
    .array(
      z.strictObject({
        name: z.string(),
        pending: counter
          .optional()
          .describe('Deliveries waiting for the endpoint, retries included (npm start; absent in AWS, where SQS counts the whole queue only: see queued)'),
        dead_letters: counter.describe('Changes whose every attempt failed, kept until replayed'),
        newest_dead_letters: z
          .array(deadLetterSchema)
          .max(FEED_NEWEST_DEAD_LETTERS)
          .describe(`The newest dead letters, newest first: at most ${FEED_NEWEST_DEAD_LETTERS}`),
        last_delivered: z
          .strictObject({ change_id: z.string(), at: z.iso.datetime() })
          .optional()
          .describe('The last delivery the endpoint acknowledged (2xx), and when; absent until one was'),
      }),
    )
    .describe('Each webhook subscription of SUBSCRIPTIONS, in its order (an EventBridge bus keeps no delivery state here)'),
  queued: counter.optional().describe("AWS only: the deliveries in the stack's SQS queue, every subscription together, as SQS approximates them"),
});

export const feedReplayAnswerSchema = z.strictObject({
  subscription: z.string(),
  queued: counter.describe('Deliveries queued again: dead letters, or matching changes of the stream'),
  next_cursor: z
    .string()
    .nullable()
    .optional()
    .describe(
      'A replay of the stream only: null when it reached the end of its range; else it stopped before, short of its time, and this `cursor` queues the rest',
    ),
});
