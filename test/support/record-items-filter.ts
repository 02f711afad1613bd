import { recordItemsFilter } from '../../infra/feed';

/** Whether a stream record's partition key passes the consumer's event filter (infra/feed.ts), as Lambda matches it: an exact value or a prefix. */
export function passesRecordItemsFilter(pk: string | undefined, filter = recordItemsFilter()): boolean {
  return pk !== undefined && filter.dynamodb.Keys.pk.S.some((v) => (typeof v === 'string' ? v === pk : pk.startsWith(v.prefix)));
}
