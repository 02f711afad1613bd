import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { changeSchema, type Change } from './change';
import type { Delivery } from './queue';

const digest = (...parts: ReadonlyArray<string>): string => createHash('sha256').update(parts.join('\0')).digest('base64url');

/**
 * The group of a delivery: one per subscription and record (model, tenant, id), whose
 * deliveries go out one at a time in the order sent. A digest, so that any id fits SQS's
 * MessageGroupId (128 characters of a small set) and a table key without escaping.
 */
export const groupOf = ({ subscription, change }: Delivery): string => digest(subscription, change.model, change.tenant ?? '', change.id);

/** Names a delivery within its subscription: the same change sent twice is one delivery (SQS's MessageDeduplicationId). */
export const deliveryKeyOf = ({ subscription, change }: Delivery): string => digest(subscription, change.change_id);

/**
 * A change as the outbox and the dead letters keep it: gzipped JSON, since a change carries a
 * record twice (before and after) and a record may take most of DynamoDB's 400 KB item.
 */
export const packChange = (change: Change): Uint8Array => gzipSync(JSON.stringify(change));
export const unpackChange = (packed: Uint8Array): Change => changeSchema.parse(JSON.parse(gunzipSync(packed).toString('utf8')));
