import { isExactNumber, numberText } from '../../json/exact-json';
import type { Model } from '../../models/model';
import { TTL_ATTRIBUTE } from '../table';

/**
 * A record's expiry: its model's ttl field (epoch seconds) copied to the item's top-level
 * TTL_ATTRIBUTE, the attribute DynamoDB's TTL reads (infra/table.ts) and every read's condition
 * names (shared/store/filter/reach.ts). A record is expired once that time is at or before now,
 * in whole seconds, as DynamoDB compares it.
 */

/** Now in epoch seconds, by the clock of the write or read that asks. */
export const epochSeconds = (ms = Date.now()): number => Math.floor(ms / 1000);

/** The item's expiry for the record's data: its ttl field's whole seconds, or none (no ttl field, no value). */
export function expiryOf(model: Model, data: Record<string, unknown>): number | undefined {
  if (model.ttl === undefined) return undefined;
  const value = data[model.ttl];
  if (!isExactNumber(value)) return undefined;
  const seconds = Math.floor(Number(numberText(value)));
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** The attribute a new item holds for its expiry, if it has one. */
export function expiryAttributes(model: Model, data: Record<string, unknown>): Record<string, number> {
  const seconds = expiryOf(model, data);
  return seconds === undefined ? {} : { [TTL_ATTRIBUTE]: seconds };
}

/** What an UpdateExpression's builder offers (shared/store/filter/expression.ts), named here without importing it. */
interface Placeholders {
  name(attribute: string): string;
  value(value: unknown): string;
}

/**
 * An update of a record's whole data, on its expiry: SET to the new ttl value, or REMOVE when
 * the field is gone. Nothing on a model without a ttl field.
 */
export function expiryClauses(model: Model, data: Record<string, unknown>, x: Placeholders): { set: string[]; remove: string[] } {
  if (model.ttl === undefined) return { set: [], remove: [] };
  const seconds = expiryOf(model, data);
  if (seconds === undefined) return { set: [], remove: [x.name(TTL_ATTRIBUTE)] };
  return { set: [`${x.name(TTL_ATTRIBUTE)} = ${x.value(seconds)}`], remove: [] };
}

/** An item's expiry (as stored, or a stream image), epoch seconds; undefined when it has none. */
export function storedExpiry(item: Record<string, unknown> | undefined): number | undefined {
  const value = item?.[TTL_ATTRIBUTE];
  if (value === undefined || value === null) return undefined;
  const seconds = Number(isExactNumber(value) ? numberText(value) : value);
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** Whether an item (as stored, or a stream image) is expired at `now` (epoch seconds). */
export function isExpired(item: Record<string, unknown> | undefined, now = epochSeconds()): boolean {
  const seconds = storedExpiry(item);
  return seconds !== undefined && seconds <= now;
}
