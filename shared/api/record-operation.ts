import * as zm from '../zod';
import { ApiError } from '../errors';
import type { Caller } from '../auth/authorize';
import type { Operation } from '../contract';
import { illFormedPath } from '../json/well-formed';
import type { Model } from '../models/model';
import type { ActionOptions } from '../store/types';
import { reachFor } from '../access/caller-rules';
import { issueDetails, pathText } from '../models/details';
import { lookUpModelsWith } from '../access/model-lookup';
import { findModel } from '../models/catalog';
import { loadAllModels } from '../models/load-all';
import { InvalidFilter } from '../store/errors';
import { requestErrorMap } from './requests/common';

// The chain's rule checks find models through the catalog this function serves (shared/access/model-lookup.ts).
lookUpModelsWith(findModel);

// Only the unknown_model answer lists the models, so only it loads them all.
const visibleModelNames = async () => (await loadAllModels()).filter((model) => model.access !== 'hidden').map((model) => model.name);

/** The model a request names, if the serving function may act on it: a hidden one is unknown, a read-only one takes no write. */
export async function modelNamed(name: string, writes: boolean): Promise<Model> {
  const model = await findModel(name);
  if (!model || model.access === 'hidden') {
    throw new ApiError('unknown_model', `There is no model ${JSON.stringify(name)}`, { model: name, available: await visibleModelNames() });
  }
  if (writes && model.access === 'read_only') {
    throw new ApiError('forbidden', `Model ${name} is read-only through the API; the service writes it`, { model: name });
  }
  return model;
}

export function parseBody<S extends zm.core.$ZodType>(schema: S, body: unknown): zm.infer<S> {
  const result = zm.safeParse(schema, body, { error: requestErrorMap });
  if (result.success) return result.data;
  const details = issueDetails(result.error.issues);
  const first = details[0];
  throw new ApiError('invalid_request', `Invalid request body: ${first.path || 'body'}: ${first.message}`, { details });
}

/** Refuses a body with a string DynamoDB cannot store byte for byte (shared/json/well-formed.ts). */
export function checkWellFormed(body: unknown): void {
  const path = illFormedPath(body);
  if (!path) return;
  const at = pathText(path);
  const message = 'contains an unpaired UTF-16 surrogate, which cannot be stored as sent';
  if (path[0] === 'filters') throw new InvalidFilter(at, message);
  throw new ApiError('validation_error', `The request is invalid: ${at}: ${message}`, { path: at, details: [{ path: at, message }] });
}

/** An operation's data with headers of its own: a record's ETag. */
export class WithHeaders<R> {
  constructor(
    readonly data: R,
    readonly headers: Record<string, string>,
  ) {}
}

/**
 * The operation of a record function: find the model (one the serving function may act on, by
 * whether it writes: its descriptor comes with the request), check the body against the
 * operation's schema, run it within the caller's reach (shared/access/rules.ts). The function's name is given once, to httpHandler.
 * Each operation lives in its own module (shared/api/<operation>.ts) so that a function's bundle
 * holds only the operation it serves.
 */
export function recordOperation<S extends zm.core.$ZodType, R>(
  schema: S,
  run: (model: Model, body: zm.infer<S>, options: ActionOptions, headers: Record<string, string>, caller: Caller | undefined) => Promise<R | WithHeaders<R>>,
  status = 200,
): Operation {
  return async (request) => {
    const model = await modelNamed(request.params.model_name ?? '', request.descriptor.writes);
    // What the caller reaches of the model (403 when its credential lacks what a rule needs), before its body is read.
    const reach = await reachFor(model, request.caller);
    checkWellFormed(request.body);
    const result = await run(model, parseBody(schema, request.body), { keyRun: request.keyRun, reach }, request.headers, request.caller);
    return result instanceof WithHeaders ? { data: result.data, status, headers: result.headers } : { data: result, status };
  };
}
