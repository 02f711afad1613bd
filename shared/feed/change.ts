import { z } from 'zod';

/**
 * One committed write of one record, as the change feed tells it (issue 34): built from the
 * table's stream record (NEW_AND_OLD_IMAGES) by ./from-stream.ts, never from the request, so that
 * only what DynamoDB committed is told. `change_id` is unique and stable across redeliveries and
 * replays: it is every webhook's `webhook-id`.
 */
export const changeOps = ['create', 'update', 'delete'] as const;
export type ChangeOp = (typeof changeOps)[number];

/** A record as the record API answers it: its data fields, `id` and the system fields. */
const recordImage = z.record(z.string(), z.unknown());

export const changeSchema = z.object({
  change_id: z.string().min(1),
  model: z.string().min(1),
  id: z.string().min(1),
  /** Models with a tenant rule only: ids are per tenant, so (tenant, id) names the record. */
  tenant: z.string().optional(),
  op: z.enum(changeOps),
  /** The record's `_version` after the change; for a delete, the version deleted. Receivers order by it. */
  version: z.number().int().positive(),
  /** When the change committed, ISO 8601. */
  time: z.string(),
  /** A delete made by DynamoDB's TTL (or the local sweeper), not by a request. */
  expired: z.literal(true).optional(),
  /** create: absent; update: the record before; delete: the record deleted. */
  before: recordImage.optional(),
  /** create and update: the record after; delete: absent. */
  after: recordImage.optional(),
  /** The request that made the change, where a request made it and the item still says so (not a delete). */
  request_id: z.string().optional(),
  /** The digest of the caller that made the change (shared/auth/authorize.ts `subject`), never a sub or claim. */
  subject: z.string().optional(),
});
export type Change = z.infer<typeof changeSchema>;

/** The body of a webhook, as Standard Webhooks' payload structure has it: `type`, `timestamp`, `data`. */
export interface WebhookBody {
  type: `${string}.${ChangeOp}`;
  timestamp: string;
  data: Change;
}
