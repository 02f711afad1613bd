import { createHmac } from 'node:crypto';
import { parseExactJson } from '../../shared/json/exact-json';
import { identityOf } from '../../shared/onebot/store/dedupe';
import { idText, type OneBotEvent } from '../../shared/onebot/event';
import { spooled } from '../../shared/onebot/keep/spool';
import type { Api, Reply } from '../support/api';

/** The four receiver routes: NoneBot's three and the old root URL. */
export const ROUTES = ['/', '/onebot/v11/', '/onebot/v11/http', '/onebot/v11/http/'] as const;
/** The route the suites send their event matrices to; the others are shown to reach the same function once each. */
export const EVENT_ROUTE = ROUTES[1];
export const SELF_ID = 10001;

const sender = { user_id: 20002, nickname: 'alice', sex: 'female', age: 20 };
const group = 30003;

/** One event of every type in the OneBot 11 event list, plus what senders add in the field. */
export const EVENTS: Record<string, Record<string, unknown>> = {
  'message private string': {
    post_type: 'message',
    message_type: 'private',
    sub_type: 'friend',
    message_id: 11,
    user_id: 20002,
    message: 'hi [CQ:face,id=178] &#91;x&#93;',
    raw_message: 'hi [CQ:face,id=178] &#91;x&#93;',
    font: 0,
    sender,
  },
  'message private array': {
    post_type: 'message',
    message_type: 'private',
    sub_type: 'group',
    message_id: 12,
    user_id: 20002,
    message: [
      { type: 'text', data: { text: 'hi [x]' } },
      { type: 'face', data: { id: '178' } },
    ],
    raw_message: 'hi &#91;x&#93;[CQ:face,id=178]',
    font: 0,
    sender,
  },
  'message group string': {
    post_type: 'message',
    message_type: 'group',
    sub_type: 'normal',
    message_id: -2147483648,
    group_id: group,
    user_id: 20002,
    anonymous: null,
    message: 'hello',
    raw_message: 'hello',
    font: 0,
    sender: { ...sender, card: '', area: '', level: '1', role: 'member', title: '' },
  },
  'message group array': {
    post_type: 'message',
    message_type: 'group',
    sub_type: 'anonymous',
    message_id: 14,
    group_id: group,
    user_id: 80000000,
    anonymous: { id: 1, name: 'anon', flag: 'f' },
    message: [{ type: 'text', data: { text: 'hello' } }],
    raw_message: 'hello',
    font: 0,
    sender,
  },
  'notice group_upload': {
    post_type: 'notice',
    notice_type: 'group_upload',
    group_id: group,
    user_id: 20002,
    file: { id: 'f1', name: 'a.txt', size: 3, busid: 102 },
  },
  'notice group_admin': { post_type: 'notice', notice_type: 'group_admin', sub_type: 'set', group_id: group, user_id: 20002 },
  'notice group_decrease': { post_type: 'notice', notice_type: 'group_decrease', sub_type: 'kick', group_id: group, operator_id: 40004, user_id: 20002 },
  'notice group_increase': { post_type: 'notice', notice_type: 'group_increase', sub_type: 'approve', group_id: group, operator_id: 40004, user_id: 20002 },
  'notice group_ban': { post_type: 'notice', notice_type: 'group_ban', sub_type: 'ban', group_id: group, operator_id: 40004, user_id: 20002, duration: 600 },
  'notice friend_add': { post_type: 'notice', notice_type: 'friend_add', user_id: 20002 },
  'notice group_recall': { post_type: 'notice', notice_type: 'group_recall', group_id: group, user_id: 20002, operator_id: 20002, message_id: 13 },
  'notice friend_recall': { post_type: 'notice', notice_type: 'friend_recall', user_id: 20002, message_id: 11 },
  'notice notify poke': { post_type: 'notice', notice_type: 'notify', sub_type: 'poke', group_id: group, user_id: 20002, target_id: SELF_ID },
  'notice notify lucky_king': { post_type: 'notice', notice_type: 'notify', sub_type: 'lucky_king', group_id: group, user_id: 20002, target_id: 20003 },
  'notice notify honor': { post_type: 'notice', notice_type: 'notify', sub_type: 'honor', group_id: group, honor_type: 'talkative', user_id: 20002 },
  'request friend': { post_type: 'request', request_type: 'friend', user_id: 20002, comment: 'let me in', flag: 'flag-1' },
  'request group': { post_type: 'request', request_type: 'group', sub_type: 'add', group_id: group, user_id: 20002, comment: 'answer: 42', flag: 'flag-2' },
  'meta_event lifecycle': { post_type: 'meta_event', meta_event_type: 'lifecycle', sub_type: 'enable' },
  'meta_event heartbeat': { post_type: 'meta_event', meta_event_type: 'heartbeat', status: { online: true, good: true }, interval: 5000 },
  'message_sent (NapCat)': {
    post_type: 'message_sent',
    message_type: 'private',
    sub_type: 'friend',
    message_id: 15,
    user_id: SELF_ID,
    target_id: 20002,
    message_format: 'array',
    real_seq: '123',
    message: [{ type: 'text', data: { text: 'hi' } }],
    raw_message: 'hi',
  },
  'notice group_msg_emoji_like (NapCat)': {
    post_type: 'notice',
    notice_type: 'group_msg_emoji_like',
    group_id: group,
    user_id: 20002,
    message_id: 13,
    likes: [{ emoji_id: '76', count: 1 }],
  },
};

/** The event's type fields as the receiver files them. */
export function detailOf(event: Record<string, unknown>): string | undefined {
  return (event.message_type ?? event.notice_type ?? event.request_type ?? event.meta_event_type) as string | undefined;
}

export const sign = (secret: string, body: string | Buffer): string => `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;

/**
 * The record id the receiver gives the first delivery of an event (docs/onebot.md,
 * "Duplicates"): the bot and the whole event, keys sorted (identical events of one second
 * after the first take `-1`, `-2`, ...). Not JSON: an id all the same, though nothing is stored.
 */
export function idOf(body: string | Buffer, headerSelfId = String(SELF_ID)): string {
  let event: Record<string, unknown> = {};
  try {
    const parsed = parseExactJson(body.toString());
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) event = parsed as Record<string, unknown>;
  } catch {
    // Not JSON.
  }
  return identityOf(event as OneBotEvent, idText(event.self_id) ?? headerSelfId).key;
}

/** The JSON a sender would post: `time` and `self_id` first, as the senders write them. */
export const bodyOf = (event: Record<string, unknown>, time: number, selfId = SELF_ID): string => JSON.stringify({ time, self_id: selfId, ...event });

export interface Delivery {
  selfId?: string | null;
  signature?: string;
  /** go-cqhttp's unless told: `node` is LLOneBot's, a sender that never re-sends. */
  userAgent?: string;
}

/** POSTs exact bytes as a OneBot sender does (X-Self-ID; X-Signature when given). */
export function deliver(
  api: Api,
  path: string,
  body: string | Buffer,
  { selfId = String(SELF_ID), signature, userAgent = 'CQHttp/4.15.0' }: Delivery = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': userAgent };
  if (selfId !== null) headers['x-self-id'] = selfId;
  if (signature !== undefined) headers['x-signature'] = signature;
  return api.post(path, body, headers);
}

/** Records of onebot_event matching filters, through the record API. */
export async function storedEvents(api: Api, filters: Record<string, unknown>): Promise<Record<string, any>[]> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await api.post('/api/db/onebot_event/list', { filters, limit: 1000 });
  expect(r.status).toBe(200);
  return r.body.data.items;
}

/** A group poke of `userId` in `groupId`: a notice without a natural id, so each delivery is its own event. */
export const groupPoke = (groupId: number, userId: number, targetId: number): Record<string, unknown> => ({
  post_type: 'notice',
  notice_type: 'notify',
  sub_type: 'poke',
  group_id: groupId,
  user_id: userId,
  target_id: targetId,
});

/** A group message with its natural id (`message_id`), from `userId`. */
export const groupMessage = (groupId: number, messageId: number, userId: number, text: string): Record<string, unknown> => ({
  post_type: 'message',
  message_type: 'group',
  sub_type: 'normal',
  message_id: messageId,
  group_id: groupId,
  user_id: userId,
  anonymous: null,
  message: text,
  raw_message: text,
  font: 0,
  sender: { user_id: userId },
});

/** Waits until the local spool is empty (the server drains it by itself), failing after `timeoutMs`. */
export async function spoolDrained(timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await spooled()).length > 0) {
    if (Date.now() > deadline) throw new Error(`spool not drained: ${(await spooled()).length} left`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
