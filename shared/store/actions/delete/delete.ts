import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Model } from '../../../models/model';
import { awaitTurn } from '../../bulk/contention';
import { queryFingerprint } from '../../cursor/cursor';
import { changeRecord } from '../../write/late-write';
import { matchForWrite, type Matched } from '../../bulk/match';
import { stillMatching } from '../../read/still-matching';
import { writeEach } from '../../bulk/run';
import type { Item } from '../../read/query';
import { settle } from '../../bulk/settle';
import type { Action, BulkGuard, DeleteAnswer, IfMatch, WriteOptions } from '../../types';
import { checkIfMatch } from '../../write/entity-tag';
import { reached, reachIn } from '../../reach';
import { deleteParams } from './params';

/**
 * Deletes one record if it still matches, re-reading it when someone changed it in between
 * (each delete is conditional on the record as read); false when it no longer matches.
 */
async function deleteOne(model: Model, { filter }: Matched, paramsOf: ReturnType<typeof deleteParams>, first: Item, ifMatch?: IfMatch): Promise<boolean> {
  const id = first.id as string;
  let item: Item | undefined = first;
  for (let attempt = 1; item; attempt++) {
    const before: Item = item;
    if (await changeRecord(model, before, () => new DeleteCommand(paramsOf(before)), { deletes: true })) return true;
    await awaitTurn(attempt, id);
    item = await stillMatching(model, filter, id);
    // Under If-Match a lost race is a changed (or deleted) record: 412.
    checkIfMatch(ifMatch, id, item);
  }
  return false;
}

/** Delete by filter; each delete re-checks the filter atomically, so a record that stopped matching stays. */
export const deleteRecords: Action<BulkGuard, DeleteAnswer, WriteOptions> = async (defined, request, options = {}) => {
  const model = reached(defined, options.reach);
  const fingerprint = queryFingerprint(request.filters, ['delete'], reachIn(model));
  const matched = await matchForWrite(model, request, fingerprint, options);
  const paramsOf = deleteParams(model, matched.filter);
  const results = await writeEach(matched.items, (item) => deleteOne(model, matched, paramsOf, item, options.ifMatch));
  return settle('deleted', results, matched, { model, fingerprint, request });
};
