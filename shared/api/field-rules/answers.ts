import type { ApiRecord } from '../../store/types';

/** A record as the caller may see it: without the fields hidden from it. */
export function shownRecord<R extends ApiRecord>(record: R, hidden: ReadonlySet<string>): R {
  if (hidden.size === 0) return record;
  return Object.fromEntries(Object.entries(record).filter(([field]) => !hidden.has(field))) as R;
}
