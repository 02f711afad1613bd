import { z } from 'zod';
import { changeOps } from './change';

/**
 * SUBSCRIPTIONS: a JSON array, read by `npm start` from its environment and by the deployed
 * consumer from a secret; checked at start and at synth (every model named exists, every filter
 * parses against each of its models: ./check-subscriptions.ts). A subscription delivers either to
 * a webhook (`url` + `secret`, signed as Standard Webhooks specifies) or to an EventBridge bus
 * (`bus`: `"default"` for the stack's bus, or a bus name; AWS only).
 */
const base = {
  /** Names the subscription in delivery state, dead letters and replays: stable across deploys. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, _ and -, up to 63'),
  models: z.array(z.string().min(1)).min(1),
  /** Absent: every op. */
  ops: z.array(z.enum(changeOps)).min(1).optional(),
  /** The record API's filter language, applied to `after`, or to `before` for a delete. */
  filter: z.unknown().optional(),
};

/** `whsec_` then base64 of 24 to 64 bytes, as Standard Webhooks' secrets are written. */
const webhookSecret = z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'whsec_ followed by base64 of 24-64 bytes');

export const subscriptionSchema = z.union([
  z.strictObject({
    ...base,
    url: z.url({ protocol: /^https?$/ }),
    /** Several while a secret is rotated: each attempt is signed with each, space-separated. */
    secret: z.union([webhookSecret, z.array(webhookSecret).min(1).max(5)]),
  }),
  z.strictObject({ ...base, bus: z.string().min(1) }),
]);
export type Subscription = z.infer<typeof subscriptionSchema>;

export const subscriptionsSchema = z
  .array(subscriptionSchema)
  .refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'subscription names must be unique');
