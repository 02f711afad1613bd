import type * as z from 'zod';
import { hiddenFor } from '../access/caller-rules';
import type { Caller } from '../auth/authorize';
import { ApiError } from '../errors';
import type { ActionOptions, ApiRecord } from '../store/types';
import type { Model } from '../models/model';
import { RecordExists } from '../store/errors';
import { bulkMayContinue } from '../invocation';
import { newId, runId } from '../store/keys';
import { createItems, createRecords } from '../store/actions/create/create';
import { toRecord } from '../store/read/projection';
import { entityTag } from '../store/write/entity-tag';
import { shownRecord } from './field-rules/answers';
import { checkDataNames } from './field-rules/load-writes';
import { onlyIfAbsent } from './preconditions';
import { recordOperation, WithHeaders } from './record-operation';
import { createRequest } from './requests/create';

/** With If-None-Match: * a create of an id that exists failed the caller's own condition: 412, as RFC 9110 13.1.2 answers it (409 otherwise). */
const absentOr412 = async <R>(onlyAbsent: boolean, create: () => Promise<R>): Promise<R> => {
  try {
    return await create();
  } catch (error) {
    if (!onlyAbsent || !(error instanceof RecordExists)) throw error;
    throw new ApiError('precondition_failed', `${error.message}, so If-None-Match: * fails; nothing was written`, {
      ids: error.ids,
      details: [{ path: 'headers.if-none-match', message: 'a record with that id exists' }],
    });
  }
};

export const createOperation = recordOperation<typeof createRequest, ApiRecord | { records: ApiRecord[] }>(
  createRequest,
  (model, body, options, headers, caller) => absentOr412(onlyIfAbsent(headers), () => createFrom(model, body, options, caller)),
  201,
);

/**
 * One record (its own answer, with its ETag, so that the next write can send If-Match without a
 * get_one) or an array ({records}), each with the caller's id or one the service makes.
 */
async function createFrom(model: Model, body: z.infer<typeof createRequest>, { keyRun, reach }: ActionOptions, caller: Caller | undefined) {
  const hidden = await hiddenFor(model, caller);
  // Under an Idempotency-Key the ids the service makes come from the key's run, so that a retry after an unknown outcome makes the same ones.
  const idFor = (i: number) => (keyRun ? runId(keyRun, i) : newId());
  if (!Array.isArray(body.data)) {
    if (body.ids) throw new ApiError('invalid_request', 'ids goes with an array of records; use id for one', { details: [{ path: 'ids', message: 'use id' }] });
    await checkDataNames(model, hidden, [body.data], () => ['data'], reach);
    const [item] = await createItems(
      model,
      { records: [{ id: body.id ?? idFor(0), data: body.data }] },
      { keyRun, reach, pathOf: () => ['data'], mayStart: bulkMayContinue },
    );
    return new WithHeaders(shownRecord(toRecord(item), hidden), { etag: entityTag(item) });
  }
  const records = body.data;
  if (body.id !== undefined)
    throw new ApiError('invalid_request', 'id goes with one record; use ids for an array', { details: [{ path: 'id', message: 'use ids' }] });
  if (body.ids && body.ids.length !== records.length) {
    throw new ApiError('invalid_request', `ids has ${body.ids.length} entries for ${records.length} records`, {
      details: [{ path: 'ids', message: 'one id per record' }],
    });
  }
  await checkDataNames(model, hidden, records, (i) => ['data', i], reach);
  const created = await createRecords(
    model,
    { records: records.map((data, i) => ({ id: body.ids?.[i] ?? idFor(i), data })) },
    { keyRun, reach, pathOf: (i) => ['data', i], mayStart: bulkMayContinue },
  );
  return { records: created.map((record) => shownRecord(record, hidden)) };
}
