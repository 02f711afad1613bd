import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `sha1=` then 40 hex digits. The prefix is exact, as NoneBot compares it and every sender writes
 * it (go-cqhttp `"sha1="+hex`); the hex may be upper-case, as Lagrange.OneBot writes it (.NET's Convert.ToHexString).
 */
const SIGNATURE = /^sha1=([0-9a-fA-F]{40})$/;

/**
 * Whether `header` is `sha1=<HMAC-SHA1(secret, body)>`. The HMAC covers the exact bytes
 * received: re-serialising parsed JSON would change them (Go's \u003c, .NET's \uXXXX, pretty
 * printing). The secret is keyed by its UTF-8 bytes, as go-cqhttp and NoneBot do.
 */
export function signatureMatches(secret: string, body: Buffer, header: string): boolean {
  const sent = SIGNATURE.exec(header.trim());
  if (!sent) return false;
  const expected = createHmac('sha1', Buffer.from(secret, 'utf8')).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(sent[1], 'hex'));
}
