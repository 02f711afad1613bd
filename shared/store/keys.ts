import { createHash, randomBytes } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';
import { LIMITS } from '../limits';
import type { Model } from '../models/define';
import { isExactNumber, numberText } from '../json/exact-json';
import { sortableDecimal } from '../json/decimal';
import { reachIn } from './reach';
import { INDEX_SLOTS, TABLE_KEY, type IndexSlot } from './table';

/**
 * Random bytes drawn 4 KiB at a time: ulid's default source asks the crypto module for one byte
 * per character, which made id generation ~50 µs of a ~500 µs create (docs/benchmarks.md,
 * warm CPU). 256 ids share one draw.
 */
const pool = { bytes: Buffer.alloc(0), next: 0 };
function randomFraction(): number {
  if (pool.next >= pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.next = 0;
  }
  return pool.bytes[pool.next++] / 256;
}

/**
 * A ULID. The monotonic factory keeps ids made in the same millisecond in creation order (it
 * increments the previous id's random part instead of drawing a new one), so `order_by: "id"`
 * is creation order even inside one batch.
 */
export const newId: () => string = monotonicFactory(randomFraction);

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of the `index`-th record an idempotent run made: a ULID whose time is the run's first
 * time and whose random part comes from the run's operation, so that the retry of a run whose
 * outcome was unknown makes the very same ids, and finds what that run wrote. The last two
 * characters are the index, keeping a batch in its order.
 */
export function runId(run: { operation: string; since: number }, index: number): string {
  const digest = createHash('sha256').update(run.operation).digest();
  const random = Array.from({ length: 14 }, (_, i) => CROCKFORD[digest[i] % 32]).join('');
  return `${encodeTime(run.since, 10)}${random}${CROCKFORD[Math.floor(index / 32) % 32]}${CROCKFORD[index % 32]}`;
}

/** FNV-1a over the id's UTF-8 bytes: stable across runtimes, cheap, evenly spread. */
export function shardOf(model: Model, id: string): number {
  if (model.shards === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(id, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % model.shards;
}

export const partitionKey = (model: Model, shard: number): string => `${model.name}#${shard}`;

/**
 * The primary key of a record's item: its shard's partition, and as sort key its id within its
 * tenant's key space (keySpace), so that the same id of two tenants is two records.
 */
export const itemKey = (model: Model, id: string, space = keySpace(model)): Record<string, string> => ({
  [TABLE_KEY.partitionKey]: partitionKey(model, shardOf(model, id)),
  [TABLE_KEY.sortKey]: `${space}${id}`,
});

export function indexSlotOf(model: Model, field: string): IndexSlot | undefined {
  const position = model.indexed.indexOf(field);
  return position < 0 ? undefined : INDEX_SLOTS[position];
}

export const indexPartitionKey = (model: Model, field: string, shard: number): string => `${model.name}#${field}#${shard}`;

/** Sorts below every value: records without the field still appear when ordering by it. */
const MISSING = '!';
/** Ends the value part of an index sort key, below every character an encoded value holds. */
export const VALUE_END = '\u0000';
/** Just above every key whose value part equals a given value. */
export const VALUE_AFTER = '\u0001';

// Escaping keeps \0 and \1 out of encoded strings while keeping their order.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 and U+0001 are the escape's own alphabet
const escapeString = (s: string): string => s.replace(/[\u0000\u0001]/g, (c) => (c === '\u0000' ? '\u0001\u0001' : '\u0001\u0002'));

function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  let out = '';
  let bytes = 0;
  for (const char of s) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}

/**
 * The bytes of an indexed string that index keys in the key space `space` keep: a tenant's name
 * (keySpace) takes its share of DynamoDB's 1,024-byte sort key, which the value and the id share.
 */
export const valueRoom = (space: string): number => LIMITS.maxIndexedStringBytes - Buffer.byteLength(space, 'utf8');

/** A string whose UTF-8 byte order is the order of the field's values (strings: of their first `room` bytes). */
export function sortableValue(value: unknown, room: number = LIMITS.maxIndexedStringBytes): string {
  if (value === undefined || value === null) return MISSING;
  if (isExactNumber(value)) return sortableDecimal(numberText(value));
  if (typeof value === 'string') return `"${truncateUtf8(escapeString(value), room)}`;
  throw new TypeError('only strings and numbers are indexed');
}

/**
 * A stored key keeps at least `room` - 3 bytes of a long value (a character takes up to 4 bytes,
 * and the cut may fall between the two bytes of an escaped \0 or \1), so an operand this short
 * or shorter is decided by the key alone: no stored prefix can be mistaken for it.
 */
const exactBytes = (room: number) => room - 8;

/** True when key conditions on this operand decide exactly (keys keeping `room` bytes), so the filter need not re-check. */
export const keyIsExact = (value: unknown, room: number = LIMITS.maxIndexedStringBytes): boolean =>
  typeof value !== 'string' || Buffer.byteLength(escapeString(value), 'utf8') <= exactBytes(room);

/** A prefix of the index key (keeping `room` bytes) of every string value that starts with this operand's first bytes. */
export const keyPrefix = (value: string, room: number = LIMITS.maxIndexedStringBytes): string => `"${truncateUtf8(escapeString(value), exactBytes(room))}`;

/** Above every key that starts with `prefix`: its last character raised by one code point. */
export function afterPrefix(prefix: string): string {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = chars.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) return chars.join('') + String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1);
  }
  throw new RangeError('no key follows this prefix');
}

/**
 * Bounds of the keys of every present value of the operand's kind: strings encode as `"...`,
 * numbers as `0...` to `2...`, missing values as `!`. No key equals a bound (keys end in \0 and
 * an id), so a range of one kind never takes in the other kind or missing values.
 */
export const kindRange = (sample: unknown): [string, string] => (typeof sample === 'string' ? ['"', '#'] : ['0', '3']);

/**
 * The start of every sort key, of items and of index entries, of one tenant's records: its name
 * escaped as index strings are, then VALUE_END. No escaped name holds VALUE_END, so one tenant's
 * keys are one contiguous range no other tenant's key falls in, and a tenant's Query reads only
 * its own records. '' for a model without a tenant rule.
 */
const tenantSpace = (tenant: string | undefined): string => (tenant === undefined ? '' : `${escapeString(tenant)}${VALUE_END}`);

/**
 * The tenant whose key space a record's sort key lies in (tenantSpace read back): its name is
 * all before the first VALUE_END, which no escaped name holds, unescaped; undefined for a key in
 * no tenant's space.
 */
export function tenantOfSortKey(sortKey: string): string | undefined {
  const end = sortKey.indexOf(VALUE_END);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 is the escape's own alphabet
  return end < 0 ? undefined : sortKey.slice(0, end).replace(/\u0001[\u0001\u0002]/g, (pair) => (pair === '\u0001\u0001' ? '\u0000' : '\u0001'));
}

/** Just above every key of the key space `space` (not itself a key: no key holds VALUE_AFTER right after an escaped name). */
export const afterSpace = (space: string): string => `${space.slice(0, -1)}${VALUE_AFTER}`;

/** The key space the model's records lie in as its caller reaches them (shared/store/reach.ts): its tenant's, or all of a model without a tenant rule. */
export const keySpace = (model: Model): string => (model.tenant ? tenantSpace(reachIn(model)?.tenant) : '');

/** The key space of a record by its data: its tenant field's (stamped on create, never changed after). */
export const dataSpace = (model: Model, data: Record<string, unknown>): string => {
  const tenant = model.tenant ? data[model.tenant.field] : undefined;
  return tenantSpace(typeof tenant === 'string' ? tenant : undefined);
};

export const indexSortKey = (value: unknown, id: string, space = ''): string => `${space}${sortableValue(value, valueRoom(space))}${VALUE_END}${id}`;

/** The id an index sort key of the key space `space` ends with: no encoded value holds VALUE_END, so the first one after the space ends the value. */
export const idOfIndexSortKey = (key: string, space = ''): string => key.slice(key.indexOf(VALUE_END, space.length) + 1);

/** The index attributes of a record, written with it so its indexed fields stay queryable, in its tenant's key space. */
export function indexAttributes(model: Model, id: string, data: Record<string, unknown>): Record<string, string> {
  const shard = shardOf(model, id);
  const space = dataSpace(model, data);
  const attributes: Record<string, string> = {};
  model.indexed.forEach((field, position) => {
    const slot = INDEX_SLOTS[position];
    attributes[slot.partitionKey] = indexPartitionKey(model, field, shard);
    attributes[slot.sortKey] = indexSortKey(data[field], id, space);
  });
  return attributes;
}
