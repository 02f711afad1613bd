import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS } from '../../../limits';
import type { Model } from '../../../models/define';
import { db } from '../../client';
import { queryFingerprint } from '../../cursor';
import { beforeCutoff } from '../../deadline';
import { matchForWrite, type BulkOptions } from '../../match';
import { mapPool } from '../../pool';
import { settle } from '../../settle';
import type { BulkGuard, DeleteAnswer } from '../../types';
import { isConditionFailure, settledDespite } from '../../write-token';
import { deleteParams } from './params';
import { inTime } from '../../../deadline';

/** Delete by filter; each delete re-checks the filter atomically, so a record that stopped matching stays. */
export async function deleteRecords(model: Model, request: BulkGuard, options: BulkOptions = {}): Promise<DeleteAnswer> {
  const { deadline = Infinity } = options;
  const fingerprint = queryFingerprint(request.filters, ['delete']);
  const matched = await matchForWrite(model, request, fingerprint, options);
  const { filter, items } = matched;
  const paramsOf = deleteParams(model, filter);
  const results = await mapPool(
    items,
    LIMITS.writeConcurrency,
    async (item) => {
      try {
        await db().send(new DeleteCommand(paramsOf(item.id as string)), inTime());
        return true;
      } catch (error) {
        // Gone after an attempt whose answer was lost: this delete removed it.
        if (await settledDespite(error, model, item.id as string, (stored) => stored === undefined)) return true;
        if (!isConditionFailure(error)) throw error;
        return false;
      }
    },
    beforeCutoff(deadline),
  );
  return settle('deleted', results, matched, { model, fingerprint, request });
}
