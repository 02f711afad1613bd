import { ApiError } from '../../errors';
import { parseJsonBody } from '../../json/body';
import { ONEBOT_LIMITS } from '../../limits';
import { issueDetails } from '../../models/details';
import { onebotEventSchema, type OneBotEvent } from '../event';

/** The body as JSON with exact numbers; refuses what cannot be an event before parsing deep nesting. */
export function parseBody(rawBody: Buffer): unknown {
  const text = rawBody.toString('utf8');
  if (text.trim() === '') throw new ApiError('invalid_request', 'The body is empty; a OneBot event is a JSON object');
  // Its own depth bound: DynamoDB could not store a deeper event anyway.
  return parseJsonBody(text, ONEBOT_LIMITS.maxEventDepth, 'event');
}

export function parseEvent(body: unknown): OneBotEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_request', 'A OneBot event is a JSON object', { details: [{ path: '', message: 'not an object' }] });
  }
  const result = onebotEventSchema.safeParse(body);
  if (!result.success) {
    const [detail] = issueDetails(result.error.issues);
    throw new ApiError('invalid_request', `Not a OneBot event: ${detail.path}: ${detail.message}`, { details: [detail] });
  }
  return body as OneBotEvent;
}
