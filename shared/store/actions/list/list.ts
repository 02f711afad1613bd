import { LIMITS } from '../../../limits';
import { decodeCursor, encodeCursor } from '../../cursor/cursor';
import { cursorKey } from '../../cursor/key';
import { InvalidCursor } from '../../errors';
import { indexReadiness } from '../../layout/layout';
import { reached } from '../../reach';
import { readPage } from '../../read/query';
import { toRecord } from '../../read/projection';
import type { Action, ListAnswer, ListRequest } from '../../types';
import { listRead } from './params';

/** One page in the requested order, with the cursor of the next (signed with the configured key, shared/store/cursor/key.ts). */
export const listRecords: Action<ListRequest, ListAnswer> = async (model, request, { reach } = {}) => {
  const { options, fingerprint } = listRead(reached(model, reach), request, await indexReadiness(model));
  // "" is a cursor too, and not one this service issues (the last page answers null): refused, never taken as the first page.
  const after = request.cursor !== undefined ? await decodeCursor(cursorKey, request.cursor, model, fingerprint, options.plan) : undefined;
  const limit = request.limit ?? LIMITS.defaultPageSize;
  const page = await readPage(options, limit, after, LIMITS.maxScannedPerRequest).catch((error: unknown) => {
    // The last word on a start key is DynamoDB's: one outside the query is a bad cursor, not an internal error.
    const e = error as { name?: string; message?: string };
    if (request.cursor && e.name === 'ValidationException' && /starting key/i.test(e.message ?? '')) {
      throw new InvalidCursor('The cursor does not fit this query', 'not a position of this query');
    }
    throw error;
  });
  return {
    items: page.items.map((item) => toRecord(item, request.fields)),
    next_cursor: page.after === null ? null : await encodeCursor(cursorKey, model, fingerprint, options.plan, page.after),
    scanned: page.scanned,
  };
};
