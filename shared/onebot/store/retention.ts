import { onebotMetaRetentionDays } from '../../config';

const DAY = 86_400;

/**
 * When a new event expires, as its `expires_at` (the onebot_event model's ttl field): heartbeat
 * and lifecycle events after `ONEBOT_META_RETENTION_DAYS` (default 7; 0 or junk keeps them),
 * other events never. One mechanism for every expiry: the record's ttl field, which the store
 * maps to DynamoDB's TTL attribute, hides once passed and the local sweeper deletes.
 */
export function withRetention<D extends Record<string, unknown>>(data: D, nowMs = Date.now()): D {
  if (data.post_type !== 'meta_event') return data;
  const days = onebotMetaRetentionDays();
  if (!Number.isFinite(days) || days <= 0) return data;
  return { ...data, expires_at: Math.floor(nowMs / 1000) + Math.round(days * DAY) };
}
