import { ApiError } from '../errors';
import type { IfMatch } from '../store/types';

/** One entity tag of a list (RFC 9110 8.8.3): optionally weak, then a quoted string of etagc; what follows it is checked apart. */
const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/;

const refused = (header: string, message: string) =>
  new ApiError('invalid_request', `${header}: ${message}`, { details: [{ path: `headers.${header.toLowerCase()}`, message }] });

/**
 * The entity tags of an If-Match or If-None-Match value: `*`, or a comma-separated list (empty
 * elements allowed, as RFC 9110 5.6.1 lists are). A weak tag is kept: strong comparison never
 * matches it, which is what RFC 9110 13.1.1 asks of If-Match. Anything else is a 400, never a
 * header read as absent: a condition the server drops would write what the client meant to guard.
 */
export function entityTags(header: string, value: string): IfMatch {
  if (value.trim() === '*') return '*';
  const tags: string[] = [];
  let rest = value.trim();
  while (rest.length > 0) {
    if (rest.startsWith(',')) {
      rest = rest.slice(1).trimStart();
      continue;
    }
    const tag = ENTITY_TAG.exec(rest)?.[0];
    if (tag === undefined) throw refused(header, 'must be * or entity tags as get_one answers them in ETag, such as "3-Qm9hcmQxMjM0NTY3"');
    tags.push(tag);
    rest = rest.slice(tag.length).trimStart();
    if (rest.length > 0 && !rest.startsWith(',')) throw refused(header, 'entity tags are separated by commas');
  }
  if (tags.length === 0) throw refused(header, 'is empty: send * or entity tags');
  return tags;
}

/** If-Match of an update or delete of one record by id (the store refuses it on any other filter); undefined when not sent. */
export function ifMatchOf(headers: Record<string, string>): IfMatch | undefined {
  if (headers['if-none-match'] !== undefined) throw refused('If-None-Match', 'applies to create only; an update or delete takes If-Match');
  const value = headers['if-match'];
  return value === undefined ? undefined : entityTags('If-Match', value);
}

/**
 * Whether a create says "only if absent" (If-None-Match: *), which is what every create does: it
 * then answers 412 instead of 409 for an id that exists, as RFC 9110 13.1.2 asks. No other
 * value can hold for a record not yet made, and If-Match never can: both are refused.
 */
export function onlyIfAbsent(headers: Record<string, string>): boolean {
  if (headers['if-match'] !== undefined) throw refused('If-Match', 'a create makes a new record, which has no entity tag yet; send If-None-Match: *');
  const value = headers['if-none-match'];
  if (value === undefined) return false;
  if (entityTags('If-None-Match', value) !== '*') throw refused('If-None-Match', 'a create takes only *');
  return true;
}
