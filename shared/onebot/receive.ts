import { ApiError } from '../http/errors';
import type { Operation } from '../http/middleware';
import { jsonResult, type HttpResult } from '../http/respond';
import { nestsDeeperThan } from '../json/depth';
import { parseExactJson } from '../json/exact-json';
import { botValues, recordBotStatus } from './bots';
import { eventId, storeOnce } from './dedupe';
import { eventFields, parseEvent, sameId } from './events';
import { ONEBOT_LIMITS } from '../limits';
import { quickAnswer } from './rules';
import { onebotSettings } from './settings';
import { signatureMatches } from './signature';

const NO_CONTENT: HttpResult = { statusCode: 204, headers: { 'cache-control': 'no-store' } };

function parseBody(rawBody: Buffer): unknown {
  const text = rawBody.toString('utf8');
  if (text.trim() === '') throw new ApiError('invalid_request', 'The body is empty; a OneBot event is a JSON object');
  // Before parsing: the parser recurses, and DynamoDB could not store a deeper event anyway.
  if (nestsDeeperThan(text, ONEBOT_LIMITS.maxEventDepth)) {
    throw new ApiError('invalid_request', `The event nests arrays and objects deeper than ${ONEBOT_LIMITS.maxEventDepth} levels`, { max_depth: ONEBOT_LIMITS.maxEventDepth });
  }
  try {
    return parseExactJson(text);
  } catch (error) {
    throw new ApiError('malformed_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The OneBot 11 HTTP POST receiver, behind every OneBot route. Checks run in NoneBot's order:
 * X-Self-ID (400), signature when a secret is set (401 missing, 403 wrong), then the allow-list
 * (403), then the body (400). The signature is checked over the raw bytes before any parsing.
 */
export const onebotReceive: Operation = async ({ rawBody, headers }) => {
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
    throw new ApiError('forbidden', 'The event\'s self_id is not the X-Self-ID bot');
  }
  const fields = eventFields(event, selfId);
  const stored = await storeOnce(eventId(rawBody), fields, event, await quickAnswer(event));
  const status = stored.first ? botValues(event, new Date().toISOString()) : undefined;
  // The event is stored and its answer decided: a failed status write must not turn this into a
  // 5xx, since the sender's retry would be a duplicate (204) and never update the bot either.
  if (status) {
    await recordBotStatus(fields, status).catch((error: Error) =>
      console.error(JSON.stringify({ level: 'error', code: 'bot_status_failed', self_id: String(fields.self_id), name: error?.name, message: error?.message })));
  }
  return stored.answer ? jsonResult(200, stored.answer) : NO_CONTENT;
};
