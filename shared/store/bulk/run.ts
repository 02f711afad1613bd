import { bulkMayContinue } from '../../invocation';
import { LIMITS } from '../../limits';
import type { Item } from '../read/query';
import { mapPool } from '../write/pool';

/**
 * Writes the matched records in id order, `LIMITS.writeConcurrency` at once. None is started
 * within the deadline's reserve (bulkMayContinue), nor after a write failed: the call answers
 * with a cursor from the first failed record anyway, and stopping there bounds the records
 * written after it (the writes in flight) to what the cursor can name (settle.ts).
 */
export async function writeEach(items: ReadonlyArray<Item>, write: (item: Item) => Promise<boolean>): Promise<PromiseSettledResult<boolean>[]> {
  let failed = false;
  return mapPool(
    items,
    LIMITS.writeConcurrency,
    (item) =>
      write(item).catch((reason: unknown) => {
        failed = true;
        throw reason;
      }),
    () => !failed && bulkMayContinue(),
  );
}
