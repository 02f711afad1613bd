import { onebotApiRootsText } from '../../config';
import * as zm from '../../zod';
import { idText, type OneBotEvent } from '../event';

/**
 * `ONEBOT_API_ROOTS`, NoneBot's setting name so that a NoneBot user recognises it, maps a bot's
 * self id to the root URL of its OneBot HTTP API (a plain variable; the token sent with each call
 * is act/bot-api.ts's).
 */
const apiRoots = zm.record(zm.string().check(zm.regex(/^\d+$/, 'a bot account is a number')), zm.url({ protocol: /^https?$/ }));

/** ONEBOT_API_ROOTS as text: the roots, or an Error saying what is wrong. */
export function parseApiRoots(text: string): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`ONEBOT_API_ROOTS is not JSON: ${(error as Error).message}`);
  }
  const result = apiRoots.safeParse(json);
  if (!result.success) throw new Error(`ONEBOT_API_ROOTS: ${zm.prettifyError(result.error)}`);
  return result.data;
}

let parsedRoots: { text: string; roots: Record<string, string> } | undefined;

/** The API root configured for this bot, if any. A malformed ONEBOT_API_ROOTS throws: a setup error to see, not to guess around. */
export function apiRootOf(selfId: unknown): string | undefined {
  const text = onebotApiRootsText();
  if (text === '') return undefined;
  if (parsedRoots?.text !== text) parsedRoots = { text, roots: parseApiRoots(text) };
  const id = idText(selfId);
  return id === undefined ? undefined : parsedRoots.roots[id];
}

export interface ApiCall {
  action: string;
  params: Record<string, unknown>;
}

/** The OneBot action that does what a rule's quick operation says, for the event it answers. */
export function apiCallOf(event: OneBotEvent, answer: Record<string, unknown>): ApiCall | undefined {
  if (event.post_type === 'message') {
    const target = event.message_type === 'group' ? { group_id: event.group_id } : { user_id: event.user_id };
    return { action: 'send_msg', params: { message_type: event.message_type, ...target, message: answer.reply, auto_escape: answer.auto_escape } };
  }
  if (event.post_type === 'request' && event.request_type === 'friend') {
    return {
      action: 'set_friend_add_request',
      params: { flag: event.flag, approve: answer.approve, ...(answer.remark !== undefined ? { remark: answer.remark } : {}) },
    };
  }
  if (event.post_type === 'request' && event.request_type === 'group') {
    return {
      action: 'set_group_add_request',
      params: { flag: event.flag, sub_type: event.sub_type, approve: answer.approve, ...(answer.reason !== undefined ? { reason: answer.reason } : {}) },
    };
  }
  return undefined;
}
