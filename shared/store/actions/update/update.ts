import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS } from '../../../limits';
import { SYSTEM_FIELDS, type Model } from '../../../models/define';
import { DATA_ATTRIBUTE } from '../../table';
import type { ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import { bulkMayContinue } from '../../../invocation';
import { awaitTurn } from '../../bulk/contention';
import { queryFingerprint } from '../../cursor/cursor';
import { InvalidRecord, InvalidValues } from '../../errors';
import { checkItemSize } from '../../write/item-size';
import { matchForWrite, type Matched } from '../../bulk/match';
import { stillMatching } from '../../read/still-matching';
import { mapPool } from '../../write/pool';
import type { Item } from '../../read/query';
import { settle } from '../../bulk/settle';
import type { Action, IfMatch, UpdateAnswer, UpdateRequest, WriteOptions } from '../../types';
import { checkIfMatch } from '../../write/entity-tag';
import { changeRecord } from '../../write/late-write';
import { operationWriteToken, rememberedAfter, writtenBy } from '../../write/write-token';
import { mergedData, updatedItem } from './merge';
import { updateParams } from './params';

/** Refuses values that no record could take: system fields, or nothing at all. */
function checkValues(values: Record<string, unknown>): void {
  const details: ErrorDetail[] = Object.keys(values)
    .filter((field) => Object.hasOwn(SYSTEM_FIELDS, field))
    .map((field) => ({ path: `values.${field}`, message: `${field} is managed by the service and cannot be set` }));
  if (details.length > 0) throw new InvalidValues(`values cannot set ${details.map((d) => d.path.slice(7)).join(', ')}`, details);
  if (Object.keys(values).length === 0) throw new InvalidValues('values is empty: name at least one field to set', [{ path: 'values', message: 'empty' }]);
}

/**
 * A field the model no longer declares, still held by the stored record, fails the record as a
 * whole: the detail says how to let it go, since the caller never named it.
 */
function withRemovalHint(model: Model, item: Item, detail: ErrorDetail): ErrorDetail {
  const field = detail.path.startsWith('values.') ? detail.path.slice('values.'.length) : undefined;
  const held = item[DATA_ATTRIBUTE] as Record<string, unknown>;
  if (field === undefined || Object.hasOwn(model.schema.shape, field) || !Object.hasOwn(held, field)) return detail;
  return { ...detail, message: `${detail.message}; ${model.name} no longer declares it: add "${field}": null to values to remove it` };
}

/** The record's data after the update, checked against its model and DynamoDB's item size; undefined with the problems when invalid. */
async function updatedData(model: Model, item: Item, values: Record<string, unknown>): Promise<{ data?: Record<string, unknown>; details: ErrorDetail[] }> {
  const result = await checkAgainst(model.schema, mergedData(item, values), ['values']);
  if (!result.value) return { details: result.details.map((detail) => withRemovalHint(model, item, detail)) };
  const data = result.value as Record<string, unknown>;
  checkItemSize(updatedItem(model, item, data), item.id as string);
  return { data, details: [] };
}

/** The data every matched record would have after the update; all valid, or one InvalidRecord and nothing written. */
async function validatedUpdates(model: Model, items: Item[], values: Record<string, unknown>): Promise<Map<string, Record<string, unknown>>> {
  const updates = new Map<string, Record<string, unknown>>();
  const details: ErrorDetail[] = [];
  for (const item of items) {
    const result = await updatedData(model, item, values);
    if (result.data) updates.set(item.id as string, result.data);
    for (const d of result.details) details.push({ ...d, message: `record ${item.id as string}: ${d.message}` });
  }
  if (details.length > 0) throw new InvalidRecord(details);
  return updates;
}

/**
 * Writes one record, re-reading it when someone changed it in between; false when it no longer
 * matches. A record this operation already wrote (its cursor sent again, or an Idempotency-Key's
 * retry) counts as updated and is not written twice. Under a key, the record remembers the run
 * (rememberedAfter), so that its retry still recognises the write after others changed the record.
 */
async function updateOne(
  model: Model,
  { filter, operation }: Matched,
  first: Item,
  firstData: Record<string, unknown>,
  values: Record<string, unknown>,
  { keyed, ifMatch }: { keyed: boolean; ifMatch?: IfMatch },
): Promise<boolean> {
  const id = first.id as string;
  let item: Item | undefined = first;
  let data = firstData;
  for (let attempt = 1; item; attempt++) {
    if (writtenBy(item, operation)) return true;
    const before: Item = item;
    const keyRuns = keyed ? rememberedAfter(before, operation) : undefined;
    // Every copy's token starts with the operation's, so writtenBy recognises whichever landed.
    const written = await changeRecord(
      model,
      before,
      () => new UpdateCommand(updateParams(model, { item: before, data, writeToken: operationWriteToken(operation), now: new Date().toISOString(), keyRuns })),
      { ours: (stored) => writtenBy(stored, operation), deletes: false },
    );
    if (written) return true;
    await awaitTurn(attempt, id);
    item = await stillMatching(model, filter, id);
    // Under If-Match a lost race is a changed record: 412, unless the write that won was this operation's own.
    if (!item || !writtenBy(item, operation)) checkIfMatch(ifMatch, id, item);
    if (item) {
      const result = await updatedData(model, item, values);
      if (!result.data) return false;
      data = result.data;
    }
  }
  return false;
}

/**
 * Update by filter. Each write is conditional on the version read, so a concurrent change is
 * never overwritten: the record is re-read, re-checked against the filter and retried.
 */
export const updateRecords: Action<UpdateRequest, UpdateAnswer, WriteOptions> = async (model, request, options = {}) => {
  checkValues(request.values);
  const fingerprint = queryFingerprint(request.filters, ['update', request.values]);
  const matched = await matchForWrite(model, request, fingerprint, options);
  const { items } = matched;
  const updates = await validatedUpdates(model, items, request.values);
  const results = await mapPool(
    items,
    LIMITS.writeConcurrency,
    (item) =>
      updateOne(model, matched, item, updates.get(item.id as string)!, request.values, { keyed: options.keyRun !== undefined, ifMatch: options.ifMatch }),
    bulkMayContinue,
  );
  return settle('updated', results, matched, { model, fingerprint, request });
};
