import { createHmac } from 'node:crypto';

/** The three headers every webhook attempt carries, as Standard Webhooks names them. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const SECRET_PREFIX = 'whsec_';

/**
 * Signs one attempt as Standard Webhooks specifies
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the bytes the secret's base64
 * part after `whsec_` decodes to; one signature per secret, space-separated, so a receiver holding
 * either the old or the new secret verifies while it is rotated. `body` must be the very text
 * sent. `id` is the change id, the same on every retry; the timestamp is the attempt's.
 */
export function signatureHeaders(id: string, timestampSeconds: number, body: string, secrets: string | ReadonlyArray<string>): SignatureHeaders {
  const timestamp = String(Math.floor(timestampSeconds));
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = (typeof secrets === 'string' ? [secrets] : secrets).map(
    (secret) =>
      `v1,${createHmac('sha256', Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'))
        .update(signed)
        .digest('base64')}`,
  );
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
