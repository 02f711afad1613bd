import type { Model } from '../../shared/models/model';
import { deleteRecords, updateRecords } from '../../shared/store/records';
import type { BulkGuard, UpdateRequest } from '../../shared/store/types';

/**
 * A bulk write followed by its cursor until it is complete, as docs/record-api.md tells a caller
 * to go on when one stops part way (a write that failed on a loaded engine answers 200 with what
 * was done, `complete: false` and a cursor): the total changed, and the last answer.
 */
async function whole<A extends { complete: boolean; next_cursor: string | null }>(
  write: (cursor: string | undefined) => Promise<A>,
  changed: (answer: A) => number,
): Promise<{ changed: number; last: A }> {
  let total = 0;
  let last = await write(undefined);
  total += changed(last);
  while (!last.complete && last.next_cursor !== null) {
    last = await write(last.next_cursor);
    total += changed(last);
  }
  return { changed: total, last };
}

export const updateWhole = (model: Model, request: UpdateRequest) =>
  whole(
    (cursor) => updateRecords(model, { ...request, ...(cursor === undefined ? {} : { cursor }) }),
    (a) => a.updated,
  );

export const deleteWhole = (model: Model, request: BulkGuard) =>
  whole(
    (cursor) => deleteRecords(model, { ...request, ...(cursor === undefined ? {} : { cursor }) }),
    (a) => a.deleted,
  );
