import { createHash } from 'node:crypto';
import type { Item } from '../read/query';
import { CREATED_ATTRIBUTE, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../table';
import { PreconditionFailed } from '../errors';
import type { IfMatch } from '../types';

/**
 * The strong entity tag (RFC 9110 8.8.3) of a record as stored: its version, for people, and a
 * digest of its write token, which every write replaces with one never used before. A version
 * alone comes round again once the record is deleted and made anew; the token never does. The
 * token itself stays unseen (a bulk write's token begins with its operation's), so only a digest
 * of it is shown. An item stored before tokens has its creation time in their place.
 */
export function entityTag(item: Item): string {
  const token = item[WRITE_TOKEN_ATTRIBUTE] ?? `created ${String(item[CREATED_ATTRIBUTE])}`;
  const digest = createHash('sha256').update(String(token)).digest('base64url').slice(0, 16);
  return `"${Number(item[VERSION_ATTRIBUTE])}-${digest}"`;
}

/** The entity tag of a record as a write made under unchangedSince(`before`) leaves it: one version higher, with the write's token. */
export const writtenTag = (before: Item, writeToken: string): string =>
  entityTag({ ...before, [VERSION_ATTRIBUTE]: Number(before[VERSION_ATTRIBUTE]) + 1, [WRITE_TOKEN_ATTRIBUTE]: writeToken });

/**
 * The entity tag of a record whose last write was `operation`'s (a bulk operation's, or an
 * Idempotency-Key's run); undefined once another writer's came after it, since no tag then names
 * what the operation made.
 */
export const operationTag = (item: Item, operation: string): string | undefined =>
  String(item[WRITE_TOKEN_ATTRIBUTE] ?? '').startsWith(`${operation}.`) ? entityTag(item) : undefined;

/**
 * Refuses a write to a record that does not meet If-Match (RFC 9110 13.1.1, strong comparison):
 * a missing record never does, `*` takes any stored one. Called on the record as read for the
 * write, whose write token is then its condition, so the check and the write are one.
 */
export function checkIfMatch(ifMatch: IfMatch | undefined, id: string, item: Item | undefined): void {
  if (ifMatch === undefined) return;
  if (!item) throw new PreconditionFailed(id);
  const tag = entityTag(item);
  if (ifMatch !== '*' && !ifMatch.includes(tag)) throw new PreconditionFailed(id, tag);
}
