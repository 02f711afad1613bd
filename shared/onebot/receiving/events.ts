import { NumberValue } from '@aws-sdk/lib-dynamodb';
import * as zm from '../../zod';
import { ApiError } from '../../errors';
import { parseJsonBody } from '../../json/body';
import { isExactNumber, numberText, toExactNumber, type ExactNumber } from '../../json/exact-json';
import { issueDetails } from '../../models/details';
import { ONEBOT_LIMITS } from '../../limits';

/** An id as senders write it: int64 (exact, maybe past 2^53), negative int32, or a string. */
export type OneBotId = ExactNumber | string;
const id = zm.union([zm.number(), zm.instanceof(NumberValue), zm.string()]);

/** How the OpenAPI document shows an int64 (the exact NumberValue is how it is parsed, not what is sent). */
const INTEGER = { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * What the receiver relies on; everything else (NapCat and go-cqhttp extras, unknown post
 * types such as `message_sent`) passes through untouched and is stored as received. The one
 * schema of a OneBot event: the receiver checks bodies with it and the OpenAPI document shows it
 * (the metadata says how the exact-number parts look on the wire). `time` is documented, not
 * checked: an odd sender's event is stored rather than refused (eventFields leaves the field out).
 */
export const onebotEventSchema = zm
  .looseObject({
    post_type: zm.string().check(zm.describe('message, notice, request, meta_event, message_sent, ... (any string, empty too)')),
    self_id: zm.optional(id).check(zm.meta({ description: 'The bot account (int64, exact)', anyOf: [INTEGER, { type: 'string' }] })),
    time: zm.optional(zm.unknown()).check(zm.meta({ description: 'Unix seconds', ...INTEGER })),
  })
  .check(zm.describe('A OneBot 11 event as go-cqhttp, NapCat, LLOneBot or Lagrange post it; stored as received'));

export type OneBotEvent = zm.infer<typeof onebotEventSchema> & Record<string, unknown>;

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

/** The `<post_type>_type` field names the kind within the post type: message_type, notice_type, ... */
const DETAIL_FIELDS = ['message_type', 'notice_type', 'request_type', 'meta_event_type'] as const;

const asId = (value: unknown): OneBotId | undefined => (isExactNumber(value) || typeof value === 'string' ? value : undefined);
/** X-Self-ID is text; a numeric one is filed as the number the body would have carried. */
const headerId = (header: string): OneBotId => (/^(0|-?[1-9]\d*)$/.test(header) ? toExactNumber(header) : header);
const asText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The event's filterable fields. A field of an unexpected type is left out here (it is still
 * in the stored event), so an odd sender is stored rather than refused.
 */
export function eventFields(event: OneBotEvent, headerSelfId: string) {
  const detail = DETAIL_FIELDS.map((f) => asText(event[f])).find((v) => v !== undefined);
  const time = event.time;
  const fields = {
    self_id: asId(event.self_id) ?? headerId(headerSelfId),
    post_type: event.post_type,
    detail_type: detail,
    sub_type: asText(event.sub_type),
    time: isExactNumber(time) ? time : undefined,
    user_id: asId(event.user_id),
    group_id: asId(event.group_id),
    message_id: asId(event.message_id),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<typeof fields> & Pick<typeof fields, 'self_id' | 'post_type'>;
}

export type EventFields = ReturnType<typeof eventFields>;

/**
 * Ids compare by their digits: 10001 from a header, a body or a rule is one account. Anything
 * else is no id and matches nothing: String() throws on an object whose own toString is not a
 * function, and an event's group_id can be any JSON.
 */
export const idText = (value: unknown): string | undefined => (isExactNumber(value) ? numberText(value) : typeof value === 'string' ? value : undefined);
export const sameId = (a: unknown, b: unknown): boolean => {
  const text = idText(a);
  return text !== undefined && text === idText(b);
};
