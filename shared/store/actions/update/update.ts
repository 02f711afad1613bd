import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Model } from '../../../models/model';
import { DATA_ATTRIBUTE } from '../../table';
import type { ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import { awaitTurn } from '../../bulk/contention';
import { queryFingerprint } from '../../cursor/cursor';
import { InvalidRecord, RecordExists } from '../../errors';
import { checkItemSize } from '../../write/item-size';
import { matchForWrite, type Matched } from '../../bulk/match';
import { stillMatching } from '../../read/still-matching';
import { writeEach } from '../../bulk/run';
import type { Item } from '../../read/query';
import { settle } from '../../bulk/settle';
import type { Action, IfMatch, UpdateAnswer, UpdateRequest, WriteOptions } from '../../types';
import { checkIfMatch, operationTag, writtenTag } from '../../write/entity-tag';
import { changeRecord } from '../../write/late-write';
import { operationWriteToken, rememberedAfter, writtenBy } from '../../write/write-token';
import { updatedItem } from './merge';
import type { Changes } from '../../operators/changes';
import { parseValues } from '../../operators/parse';
import { namedId, type FilterNode } from '../../filter/ast';
import { parseFilter } from '../../filter/parse';
import { loadOnce } from '../../../load-once';
import { updateParams } from './params';
import { schemaRecorded } from '../../layout/layout';
import { reached, reachIn } from '../../reach';
import { checkRowChangesFor } from '../../write/row-rules';

// Chunks of their own, loaded on first use, so that the update function's cold start grows by
// no more than issue 32's budget (10 KiB): the one-write path; applying operators in memory,
// which an update of one id by the one-write path never needs; upsert with the create it may need.
const oneWrite = loadOnce(() => import('./in-place'));
const applying = loadOnce(() => import('../../operators/apply'));
const upserting = loadOnce(() => import('./upsert'));

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
async function updatedData(model: Model, item: Item, changes: Changes): Promise<{ data?: Record<string, unknown>; details: ErrorDetail[] }> {
  const { applyChanges } = await applying();
  const result = await checkAgainst(model.schema, applyChanges(item[DATA_ATTRIBUTE] as Record<string, unknown>, changes), ['values']);
  if (!result.value) return { details: result.details.map((detail) => withRemovalHint(model, item, detail)) };
  const data = result.value as Record<string, unknown>;
  checkItemSize(updatedItem(model, item, data), item.id as string);
  return { data, details: [] };
}

/** The data every matched record would have after the update; all valid, or one InvalidRecord and nothing written. */
async function validatedUpdates(model: Model, items: Item[], changes: Changes): Promise<Map<string, Record<string, unknown>>> {
  const updates = new Map<string, Record<string, unknown>>();
  const details: ErrorDetail[] = [];
  for (const item of items) {
    const result = await updatedData(model, item, changes);
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
 * `tags`, when given, takes the record's new entity tag when it is known to be this write's.
 */
async function updateOne(
  model: Model,
  { filter, operation }: Matched,
  first: Item,
  firstData: Record<string, unknown>,
  changes: Changes,
  { keyed, ifMatch, tags }: { keyed: boolean; ifMatch?: IfMatch; tags?: Map<string, string | undefined> },
): Promise<boolean> {
  const id = first.id as string;
  let item: Item | undefined = first;
  let data = firstData;
  for (let attempt = 1; item; attempt++) {
    if (writtenBy(item, operation)) {
      tags?.set(id, operationTag(item, operation));
      return true;
    }
    const before: Item = item;
    const keyRuns = keyed ? rememberedAfter(before, operation) : undefined;
    let writeToken = '';
    // Every copy's token starts with the operation's, so writtenBy recognises whichever landed.
    const written = await changeRecord(
      model,
      before,
      () => {
        writeToken = operationWriteToken(operation);
        return new UpdateCommand(updateParams(model, { item: before, data, writeToken, now: new Date().toISOString(), keyRuns }));
      },
      { ours: (stored) => writtenBy(stored, operation), deletes: false },
    );
    if (written) {
      // Answered by DynamoDB: the last copy sent landed. Settled by a read: the item read says.
      tags?.set(id, written.stored ? operationTag(written.stored, operation) : writtenTag(before, writeToken));
      return true;
    }
    await awaitTurn(attempt, id);
    item = await stillMatching(model, filter, id);
    // Under If-Match a lost race is a changed record: 412, unless the write that won was this operation's own.
    if (!item || !writtenBy(item, operation)) checkIfMatch(ifMatch, id, item);
    if (item) {
      const result = await updatedData(model, item, changes);
      if (!result.data) return false;
      data = result.data;
    }
  }
  return false;
}

/**
 * Update by filter: each record read, its result checked, and written conditional on what was
 * read (updateOne). With `named` (the filters name one id), the entity tag of the one record it
 * changed, when that is known.
 */
async function updateMatching(model: Model, request: UpdateRequest, changes: Changes, options: WriteOptions, named: boolean): Promise<TaggedUpdate> {
  const fingerprint = queryFingerprint(request.filters, ['update', request.values], reachIn(model));
  const matched = await matchForWrite(model, request, fingerprint, options);
  const { items } = matched;
  const updates = await validatedUpdates(model, items, changes);
  const tags = named ? new Map<string, string | undefined>() : undefined;
  const results = await writeEach(items, (item) =>
    updateOne(model, matched, item, updates.get(item.id as string)!, changes, { keyed: options.keyRun !== undefined, ifMatch: options.ifMatch, tags }),
  );
  const answer = await settle('updated', results, matched, { model, fingerprint, request });
  return { answer, etag: answer.updated === 1 && tags?.size === 1 ? [...tags.values()][0] : undefined };
}

/** The id a filter names by equality and nothing else, or undefined: the record an update may write in place. */
function onlyId(filter: FilterNode): string | undefined {
  return filter.kind === 'compare' && filter.field === 'id' && filter.op === 'eq' && typeof filter.operands[0] === 'string' ? filter.operands[0] : undefined;
}

const ONE_UPDATED: UpdateAnswer = { updated: 1, matched: 1, skipped: 0, complete: true, next_cursor: null };

/**
 * An update's answer, and the new entity tag of the one record it changed when its filters name
 * an id and the tag is known to be the one get_one would answer next (this write is the record's
 * last), so that a client can send it as If-Match without reading the record again.
 */
export interface TaggedUpdate {
  answer: UpdateAnswer;
  etag?: string;
}

/**
 * Update by filter. A filter naming one id alone, outside a keyed run, If-Match, a cursor or max_affected: 0, first tries
 * one atomic conditional UpdateItem (updatedInPlace); when it cannot be stated so, or its
 * condition fails, the record is read, its result checked and written conditional on the
 * version read, so a concurrent change is never overwritten: the record is re-read,
 * re-checked against the filter and retried. An upsert that matches nothing creates the
 * record (upsertSeed), and updates it after all when a concurrent upsert created it first.
 */
export const updateRecordsTagged: Action<UpdateRequest, TaggedUpdate, WriteOptions> = async (defined, request, options = {}) => {
  const model = reached(defined, options.reach);
  const changes = parseValues(model, request.values, { upsert: request.upsert === true });
  await checkRowChangesFor(model, changes);
  const filter = parseFilter(model, request.filters);
  const named = namedId(filter) !== undefined;
  // From the caller's own filter: the create stamps the caller's owner and tenant, and refuses another's the filter names.
  const seed = request.upsert === true ? (await upserting()).upsertSeed(filter) : undefined;
  // The read path's guards say what the one write cannot: max_affected: 0 refuses even one match
  // (too_many_matches), and If-Match compares the record's entity tag, which needs it read.
  const inPlace = options.keyRun === undefined && options.ifMatch === undefined && request.cursor === undefined && (request.max_affected ?? 1) >= 1;
  const only = inPlace ? onlyId(filter) : undefined;
  const id = only !== undefined && (await schemaRecorded(model)) ? only : undefined;
  let createLost = false;
  for (;;) {
    const written = id !== undefined && (await (await oneWrite()).updatedInPlace(model, id, changes));
    if (written) return { answer: seed ? { ...ONE_UPDATED, upserted: false } : ONE_UPDATED, etag: written.etag };
    // After a create lost to a concurrent one, a keyed run's bounds (records older than its run, its plan) would hide the record it must update.
    const { answer, etag } = await updateMatching(model, request, changes, createLost ? { ...options, createLost: true } : options, named);
    if (!seed) return { answer, etag };
    // A record deleted, or changed out of the filters, between its read and its write was skipped:
    // the upsert goes on as if it had found it so, which is the order the writes were in.
    if (answer.matched > answer.skipped) return { answer: { ...answer, upserted: false }, etag };
    // Created by a concurrent upsert, yet not matching: the filters' other conditions exclude the record that holds the id.
    if (createLost && answer.matched === 0) throw new RecordExists(model.name, [seed.id]);
    const created = answer.matched === 0 ? await (await upserting()).createdFrom(model, seed, changes, options.keyRun) : undefined;
    if (created) return { answer: { updated: 0, matched: 0, skipped: 0, complete: true, next_cursor: null, upserted: true }, etag: created };
    createLost ||= answer.matched === 0;
  }
};

/** updateRecordsTagged's answer alone. */
export const updateRecords: Action<UpdateRequest, UpdateAnswer, WriteOptions> = async (model, request, options) =>
  (await updateRecordsTagged(model, request, options)).answer;
