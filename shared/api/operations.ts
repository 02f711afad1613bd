import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod';
import { settings } from '../config';
import { ApiError, pathText } from '../http/errors';
import type { ApiRequest, Operation } from '../http/middleware';
import { jsonResult } from '../http/respond';
import { illFormedPath } from '../json/well-formed';
import { failure } from '../http/envelope';
import { SYSTEM_FIELDS, type Model } from '../models/define';
import { findModel, MODELS } from '../models/registry';
import { botHealth, type BotHealth } from '../onebot/bots';
import { db } from '../store/client';
import { newId } from '../store/keys';
import {
  countRecords, createRecords, deleteRecords, getOneRecord, listRecords, updateRecords,
} from '../store/records';
import { TABLE_KEY } from '../store/table';
import { countRequest, createRequest, deleteRequest, getOneRequest, listRequest, requestErrorMap, updateRequest } from './requests';

const visibleModels = () => MODELS.filter((m) => m.access !== 'hidden');

function modelFor(request: ApiRequest, writes: boolean): Model {
  const name = request.params.model_name ?? '';
  const model = findModel(name);
  if (!model || model.access === 'hidden') {
    throw new ApiError('unknown_model', `There is no model ${JSON.stringify(name)}`, { model: name, available: visibleModels().map((m) => m.name) });
  }
  if (writes && model.access === 'read_only') {
    throw new ApiError('forbidden', `Model ${name} is read-only through the API; the service writes it`, { model: name });
  }
  return model;
}

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body, { error: requestErrorMap });
  if (result.success) return result.data;
  const details = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: pathText([...issue.path, key]), message: `unknown property ${JSON.stringify(key)}` }))
      : [{ path: pathText(issue.path), message: issue.message }],
  );
  const first = details[0];
  throw new ApiError('invalid_request', `Invalid request body: ${first.path || 'body'}: ${first.message}`, { details });
}

/** Refuses a body with a string DynamoDB cannot store byte for byte (shared/json/well-formed.ts). */
function checkWellFormed(body: unknown): void {
  const path = illFormedPath(body);
  if (!path) return;
  const at = pathText(path);
  const message = 'contains an unpaired UTF-16 surrogate, which cannot be stored as sent';
  const extra = { path: at, details: [{ path: at, message }] };
  if (path[0] === 'filters') throw new ApiError('invalid_filter', `Invalid filter at ${at}: ${message}`, extra);
  throw new ApiError('validation_error', `The request is invalid: ${at}: ${message}`, extra);
}

/** A record operation: find the model, check the body against the operation's schema, run it. */
function recordOperation<S extends z.ZodType, R>(schema: S, writes: boolean, run: (model: Model, body: z.infer<S>, deadline: number) => Promise<R>, status = 200): Operation {
  return async (request) => {
    const model = modelFor(request, writes);
    checkWellFormed(request.body);
    return { data: await run(model, parseBody(schema, request.body), request.deadline), status };
  };
}

export const createOperation = recordOperation(createRequest, true, async (model, body) => {
  if (!Array.isArray(body.data)) {
    if (body.ids) throw new ApiError('invalid_request', 'ids goes with an array of records; use id for one', { details: [{ path: 'ids', message: 'use id' }] });
    const [record] = await createRecords(model, [{ id: body.id ?? newId(), data: body.data }], () => ['data']);
    return record;
  }
  const records = body.data;
  if (body.id !== undefined) throw new ApiError('invalid_request', 'id goes with one record; use ids for an array', { details: [{ path: 'id', message: 'use ids' }] });
  if (body.ids && body.ids.length !== records.length) {
    throw new ApiError('invalid_request', `ids has ${body.ids.length} entries for ${records.length} records`, { details: [{ path: 'ids', message: 'one id per record' }] });
  }
  const created = await createRecords(model, records.map((data, i) => ({ id: body.ids?.[i] ?? newId(), data })), (i) => ['data', i]);
  return { records: created };
}, 201);

export const getOneOperation = recordOperation(getOneRequest, false, (model, body) => getOneRecord(model, body));
export const listOperation = recordOperation(listRequest, false, (model, body) => listRecords(model, body));
export const countOperation = recordOperation(countRequest, false, (model, body) => countRecords(model, body));
export const updateOperation = recordOperation(updateRequest, true, (model, body, deadline) => updateRecords(model, body, deadline));
export const deleteOperation = recordOperation(deleteRequest, true, (model, body, deadline) => deleteRecords(model, body, deadline));

export const modelsOperation: Operation = async () => ({
  data: {
    models: visibleModels().map((m) => ({
      name: m.name,
      description: m.description,
      access: m.access,
      schema: m.jsonSchema,
      system_fields: SYSTEM_FIELDS,
      indexed: m.indexed,
      sortable: ['id', ...m.indexed],
      shards: m.shards,
    })),
  },
});

/**
 * One consistent point read of a key no record uses: proves the table answers, costs 0.5 RCU.
 * Then the OneBot bots and whether each one's heartbeat is overdue (shared/onebot/bots.ts).
 */
export async function databaseHealth(): Promise<{ database: 'ok'; latency_ms: number; table: string; bots: BotHealth[] }> {
  const started = performance.now();
  const table = settings().TABLE_NAME;
  await db().send(new GetCommand({ TableName: table, Key: { [TABLE_KEY.partitionKey]: '#health', [TABLE_KEY.sortKey]: '#health' } }));
  const latency = Math.round((performance.now() - started) * 10) / 10;
  return { database: 'ok', latency_ms: latency, table, bots: await botHealth() };
}

export const healthOperation: Operation = async () => {
  try {
    return { data: await databaseHealth() };
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', code: 'database_unavailable', name: (error as Error)?.name, message: (error as Error)?.message }));
    return jsonResult(503, failure('database_unavailable', 'The database cannot be reached', { database: 'unavailable' }), { 'retry-after': '5' });
  }
};
