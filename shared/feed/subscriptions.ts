import * as zm from '../zod';
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
  name: zm.string().check(zm.regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, _ and -, up to 63')),
  models: zm.array(zm.string().check(zm.minLength(1))).check(zm.minLength(1)),
  /** Absent: every op. */
  ops: zm.optional(zm.array(zm.enum(changeOps)).check(zm.minLength(1))),
  /** The record API's filter language, applied to `after`, or to `before` for a delete. */
  filter: zm.optional(zm.unknown()),
};

/** `whsec_` then base64 of 24 to 64 bytes, as Standard Webhooks' secrets are written. */
const webhookSecret = zm.string().check(zm.regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'whsec_ followed by base64 of 24-64 bytes'));

// zod/mini (../zod.ts): the feed's functions load this at their cold start.
export const subscriptionSchema = zm.union([
  zm.strictObject({
    ...base,
    url: zm.url({ protocol: /^https?$/ }),
    /** Several while a secret is rotated: each attempt is signed with each, space-separated. */
    secret: zm.union([webhookSecret, zm.array(webhookSecret).check(zm.minLength(1), zm.maxLength(5))]),
  }),
  zm.strictObject({ ...base, bus: zm.string().check(zm.minLength(1)) }),
]);
export type Subscription = zm.infer<typeof subscriptionSchema>;

export const subscriptionsSchema = zm
  .array(subscriptionSchema)
  .check(zm.refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'subscription names must be unique'));
