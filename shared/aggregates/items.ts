/*
 * What the two kinds of aggregate items hold (their keys: ./keys.ts). Written by ./apply.ts,
 * read by the aggregate route and by `count` from an aggregate.
 *
 * A counter item, one per group:
 * - COUNT: the records in the group, kept for every aggregate (sum-only ones too), so that a
 *   group whose count is 0 is known to be empty and is never answered;
 * - GROUP: the group's values by field (null for a missing field), as the first record that
 *   made the group held them: a long value's key is its digest, so the key alone cannot say it
 *   (absent for the one group of an aggregate without group fields);
 * - sumAttribute(field): the exact sum of the field over the group's records that hold a number there.
 *
 * A contribution item, one per record and aggregate: what the record's state last applied adds.
 */

export const COUNT_ATTRIBUTE = 'c';
export const GROUP_ATTRIBUTE = 'g';
/** Top-level attributes: DynamoDB's ADD adds to no nested one. */
export const sumAttribute = (field: string): string => `s:${field}`;

/** The contribution's state order (./keys.ts stateOrder): a state is applied only after every one it holds. */
export const ORDER_ATTRIBUTE = 'o';
/** The counter's sort key the record counts in; absent once the record is deleted (the contribution stays, keeping its order). */
export const COUNTED_IN_ATTRIBUTE = 'k';
/** What the record adds to each sum, by field: the numbers it held there. */
export const ADDS_ATTRIBUTE = 'v';
/** The ttl the record is counted with (epoch seconds): where its expiry marker lies (./markers.ts); absent when it has none. */
export const EXPIRY_ATTRIBUTE = 'x';
