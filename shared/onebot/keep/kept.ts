import { whyUnavailable } from '../../store/unavailable';
import * as zm from '../../zod';
import type { Delivery } from '../delivery';

/**
 * A verified delivery kept while the database was unreachable, as JSON: the exact body bytes
 * (base64, or a blob location when too big for a queue message), the headers the receiver
 * reads after verification, when it was received (the identity windows count from then), its
 * delivery id (the database may have stored it before its answer was lost: the id finds that
 * record), whether it was signed and whether its answer was late. Deliveries kept before ids
 * existed get one from their receive time and bytes, the same at every replay.
 */
export const keptDelivery = zm.strictObject({
  body: zm.optional(zm.string()),
  body_ref: zm.optional(zm.string()),
  headers: zm.record(zm.string(), zm.string()),
  received_at: zm.iso.datetime(),
  delivery_id: zm.optional(zm.string()),
  signed: zm.optional(zm.boolean()),
  late: zm.optional(zm.boolean()),
});

export type KeptDelivery = zm.infer<typeof keptDelivery>;

/**
 * Whether a delivery is kept through `error`, and a kept one waits it out: the database down,
 * overloaded or not answering (a write whose outcome is unknown among them: the kept copy is
 * stored once when the database is back, found again by its delivery id), or a table that is
 * missing or not granted, which an operator fixes while the kept deliveries wait. Decided once, in
 * the store's terms, where the record API's answer is decided too (shared/store/unavailable.ts).
 */
export const waitsForDatabase = (error: unknown): boolean => whyUnavailable(error) !== undefined;

const KEPT_HEADERS = ['x-self-id', 'user-agent', 'content-type'] as const;

export function toKept(delivery: Delivery, bodyRef?: string): KeptDelivery {
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (delivery.headers[name] !== undefined ? [[name, delivery.headers[name]!]] : [])));
  return {
    ...(bodyRef ? { body_ref: bodyRef } : { body: delivery.rawBody.toString('base64') }),
    headers,
    received_at: delivery.receivedAt,
    delivery_id: delivery.id,
    signed: delivery.signed,
    ...(delivery.late ? { late: true } : {}),
  };
}
