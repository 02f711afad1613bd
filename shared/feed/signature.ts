import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks' signature headers: `v1,` then base64 of HMAC-SHA256 over `id.timestamp.body`,
 * keyed with the secret's base64 part; one signature per secret, space-separated, while a secret
 * is rotated. (The interface H2 owns on f34-h2; this copy lets the deliverer be built and tested
 * first: on merge, f34-h2's file is the one to keep.)
 */
export function signatureHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: string | ReadonlyArray<string>,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const signatures = (typeof secrets === 'string' ? [secrets] : secrets).map(
    (secret) =>
      `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
        .update(`${id}.${timestampSeconds}.${body}`)
        .digest('base64')}`,
  );
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
