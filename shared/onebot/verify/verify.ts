import { ApiError } from '../../errors';
import { sameId, type OneBotEvent } from '../event';
import { parseBody, parseEvent } from './parse';
import { onebotSettings } from './settings';
import { signatureMatches } from './signature';

export interface Verified {
  event: OneBotEvent;
  /** Whether its signature was checked (a secret is set). */
  signed: boolean;
}

/**
 * Checks a delivery in NoneBot's order: X-Self-ID (400), signature when a secret is set (401
 * missing, 403 wrong), then the allow-list (403), then the body (400). The signature is checked
 * over the raw bytes before any parsing.
 */
export async function verifyDelivery(headers: Readonly<Record<string, string | undefined>>, rawBody: Buffer): Promise<Verified> {
  const selfId = headers['x-self-id']?.trim();
  if (!selfId) throw new ApiError('invalid_request', 'The X-Self-ID header is missing', { details: [{ path: 'X-Self-ID', message: 'required' }] });
  const { secret, selfIds } = await onebotSettings();
  if (secret !== undefined) {
    const signature = headers['x-signature']?.trim();
    if (!signature) throw new ApiError('unauthorized', 'The X-Signature header is missing; this receiver has a secret');
    if (!signatureMatches(secret, rawBody, signature)) throw new ApiError('forbidden', 'The X-Signature does not match the body');
  }
  if (selfIds && !selfIds.has(selfId)) throw new ApiError('forbidden', `Bot ${selfId} is not in ONEBOT_SELF_IDS`);

  const event = parseEvent(parseBody(rawBody));
  // The allow-list holds for the account the event names too, not only the header.
  if (selfIds && event.self_id !== undefined && !sameId(event.self_id, selfId)) {
    throw new ApiError('forbidden', "The event's self_id is not the X-Self-ID bot");
  }
  return { event, signed: secret !== undefined };
}
