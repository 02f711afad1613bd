import { createHash } from 'node:crypto';
import type { ErrorCode } from '../http/errors';
import * as z from '../zod';
import { getBlob } from './blobs';
import { parseBody, parseEvent } from './events';
import { handleEvent, type Delivery } from './handle';

/**
 * A verified delivery kept while the database was unreachable, as JSON: the exact body bytes
 * (base64, or a blob location when too big for a queue message), the headers the receiver
 * reads after verification, when it was received (the identity windows count from then), its
 * delivery id (the database may have stored it before its answer was lost: the id finds that
 * record) and whether it was signed. Deliveries kept before ids existed get one from their
 * receive time and bytes, the same at every replay.
 */
export const keptDelivery = z.strictObject({
  body: z.optional(z.string()),
  body_ref: z.optional(z.string()),
  headers: z.record(z.string(), z.string()),
  received_at: z.iso.datetime(),
  delivery_id: z.optional(z.string()),
  signed: z.optional(z.boolean()),
});

export type KeptDelivery = z.infer<typeof keptDelivery>;

/**
 * The database failures a delivery is kept through, and a kept one waits out: down, overloaded
 * or not answering (a write whose outcome is unknown among them: the kept copy is stored once
 * when the database is back), and a table that is missing or not granted, which an operator
 * fixes while the kept deliveries wait.
 */
export const KEPT_ON: ReadonlySet<ErrorCode> = new Set(['database_unavailable', 'misconfigured', 'outcome_unknown']);

const KEPT_HEADERS = ['x-self-id', 'user-agent', 'content-type'] as const;

export function toKept(delivery: Delivery, bodyRef?: string): KeptDelivery {
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (delivery.headers[name] !== undefined ? [[name, delivery.headers[name]!]] : [])));
  return {
    ...(bodyRef ? { body_ref: bodyRef } : { body: delivery.rawBody.toString('base64') }),
    headers,
    received_at: delivery.receivedAt,
    delivery_id: delivery.id,
    signed: delivery.signed,
  };
}

/** Stores a kept delivery through the same identity rules as a live one; its sender is long gone, so nothing is answered. */
export async function storeKept(kept: KeptDelivery): Promise<void> {
  const rawBody = kept.body_ref ? await getBlob(kept.body_ref) : Buffer.from(kept.body ?? '', 'base64');
  const id = kept.delivery_id ?? createHash('sha256').update(kept.received_at).update(rawBody).digest('hex');
  const delivery: Delivery = { id, rawBody, headers: kept.headers, receivedAt: kept.received_at, signed: kept.signed ?? false };
  await handleEvent(delivery, parseEvent(parseBody(rawBody)), false);
}
