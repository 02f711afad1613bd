import { onebotApiRootsText } from '../../config';
import { callSignal } from '../../invocation';
import * as zm from '../../zod';
import { parseExactJson, stringifyExactJson } from '../../json/exact-json';
import { ONEBOT_LIMITS } from '../../limits';
import { log } from '../../log';
import type { ModelRecord } from '../../models/define';
import type { onebotEvent } from '../../models/onebot';
import { secretSetting } from '../../secrets';
import type { OneBotEvent } from '../receiving/events';
import { idText } from '../receiving/events';

export type Done = NonNullable<ModelRecord<typeof onebotEvent>['done']>;

/**
 * NoneBot's setting names, so that a NoneBot user recognises them: `ONEBOT_API_ROOTS` maps a
 * bot's self id to the root URL of its OneBot HTTP API (a plain variable), and
 * `ONEBOT_ACCESS_TOKEN` is the token sent as `Authorization: Bearer` (a secret in AWS).
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

const actionAnswer = zm.looseObject({ status: zm.optional(zm.string()), retcode: zm.optional(zm.number()) });

/**
 * Calls the bot's HTTP API (POST <root>/<action>, JSON body) and says how it went. Never
 * throws: an unreachable or refusing bot is logged and recorded, and the delivery stands.
 */
export async function callBotApi(root: string, call: ApiCall): Promise<Done> {
  const token = await secretSetting('ONEBOT_ACCESS_TOKEN');
  const done: Done = { via: 'api', action: call.action, params: call.params };
  try {
    const response = await fetch(`${root.replace(/\/+$/, '')}/${call.action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: stringifyExactJson(call.params),
      signal: callSignal(ONEBOT_LIMITS.botApiTimeoutMs),
    });
    const text = await response.text();
    let answer: zm.infer<typeof actionAnswer> = {};
    try {
      answer = actionAnswer.parse(parseExactJson(text));
    } catch {
      // Not the OneBot answer shape (a proxy's error page, an empty 401): the status says enough.
    }
    const ok = response.ok && answer.retcode === 0;
    const result: Done = { ...done, ok, http_status: response.status, ...(answer.retcode !== undefined ? { retcode: answer.retcode } : {}) };
    if (!ok) logFailure(root, call, `HTTP ${response.status}, retcode ${answer.retcode ?? 'none'}`);
    return ok ? result : { ...result, error: `the bot answered HTTP ${response.status}${answer.status ? ` (${answer.status})` : ''}` };
  } catch (error) {
    const message =
      // The limit, or the receiver's own cutoff when that came first (shared/invocation.ts).
      (error as Error)?.name === 'TimeoutError'
        ? `no answer in time (at most ${ONEBOT_LIMITS.botApiTimeoutMs} ms)`
        : `unreachable: ${(error as Error)?.message}`;
    logFailure(root, call, message);
    return { ...done, ok: false, error: message };
  }
}

function logFailure(root: string, call: ApiCall, message: string): void {
  log.warn('bot_api_failed', { root, action: call.action, message });
}
