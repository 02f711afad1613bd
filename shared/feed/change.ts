import * as zm from '../zod';

/**
 * One committed write of one record, as the change feed tells it (issue 34): built from the
 * table's stream record (NEW_AND_OLD_IMAGES) by ./from-stream.ts, never from the request, so that
 * only what DynamoDB committed is told. `change_id` is unique and stable across redeliveries and
 * replays: it is every webhook's `webhook-id`.
 */
export const changeOps = ['create', 'update', 'delete'] as const;
export type ChangeOp = (typeof changeOps)[number];

/** A record as the record API answers it: its data fields, `id` and the system fields. */
const recordImage = zm.record(zm.string(), zm.unknown());

// zod/mini (../zod.ts): the feed's functions parse changes at their cold start.
export const changeSchema = zm.object({
  change_id: zm.string().check(zm.minLength(1)),
  model: zm.string().check(zm.minLength(1)),
  id: zm.string().check(zm.minLength(1)),
  /** Models with a tenant rule only: ids are per tenant, so (tenant, id) names the record. */
  tenant: zm.optional(zm.string()),
  op: zm.enum(changeOps),
  /** The record's `_version` after the change; for a delete, the version deleted. Receivers order by it. */
  version: zm.int().check(zm.positive()),
  /** When the change committed, ISO 8601. */
  time: zm.string(),
  /** A delete made by DynamoDB's TTL (or the local sweeper), not by a request. */
  expired: zm.optional(zm.literal(true)),
  /** create: absent; update: the record before; delete: the record deleted. */
  before: zm.optional(recordImage),
  /** create and update: the record after; delete: absent. */
  after: zm.optional(recordImage),
  /** The request that made the change, where a request made it and the item still says so (not a delete). */
  request_id: zm.optional(zm.string()),
  /** The digest of the caller that made the change (shared/auth/authorize.ts `subject`), never a sub or claim. */
  subject: zm.optional(zm.string()),
});
export type Change = zm.infer<typeof changeSchema>;

/** The body of a webhook, as Standard Webhooks' payload structure has it: `type`, `timestamp`, `data`. */
export interface WebhookBody {
  type: `${string}.${ChangeOp}`;
  timestamp: string;
  data: Change;
}
