import { callSignal } from '../../invocation';
import { parseExactJson, stringifyExactJson } from '../../json/exact-json';
import { ONEBOT_LIMITS } from '../../limits';
import { causeOf, log } from '../../log';
import { onebotEvent } from '../../models/onebot';
import { secretSetting } from '../../secrets';
import { updateRecordById } from '../../store/records';
import * as zm from '../../zod';
import type { Action, Done } from '../decide/action';
import type { ApiCall } from '../decide/api-call';

const actionAnswer = zm.looseObject({ status: zm.optional(zm.string()), retcode: zm.optional(zm.number()) });

/**
 * Calls the bot's HTTP API (POST <root>/<action>, JSON body) and says how it went. Never
 * throws: an unreachable or refusing bot is logged and recorded, and the delivery stands. The
 * token is `ONEBOT_ACCESS_TOKEN` (NoneBot's name), sent as `Authorization: Bearer` (a secret in AWS).
 */
async function callBotApi(root: string, call: ApiCall): Promise<Done> {
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

/**
 * Makes the bot API call chosen for a stored event and sets how it went on the event's record.
 * Never throws: the event is stored and its answer decided, so a failed write is logged, never
 * turned into a 5xx or a kept delivery.
 */
export async function actThroughApi(eventId: string, { root, call }: NonNullable<Action['call']>): Promise<void> {
  const done = await callBotApi(root, call);
  await updateRecordById(onebotEvent, { id: eventId, values: { done } }).then(
    (outcome) => outcome === 'missing' && log.error('bot_api_result_not_stored', { id: eventId, message: 'the event record is gone' }),
    (error: Error) => log.error('bot_api_result_not_stored', { id: eventId, ...causeOf(error) }),
  );
}
