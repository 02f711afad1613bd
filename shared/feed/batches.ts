/**
 * Consecutive runs of `items`, in order, each of at most `maxItems` and `maxBytes` in all, as
 * AWS's batch calls take them (SendMessageBatch, PutEvents: 10 entries and 256 KB each). An item
 * over `maxBytes` alone is a run of its own, for the call to refuse.
 */
export function batchesOf<T>(items: ReadonlyArray<T>, bytesOf: (item: T) => number, maxItems: number, maxBytes: number): T[][] {
  const out: T[][] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    const last = out.at(-1);
    if (!last || last.length === maxItems || bytes + size > maxBytes) {
      out.push([item]);
      bytes = size;
    } else {
      last.push(item);
      bytes += size;
    }
  }
  return out;
}
