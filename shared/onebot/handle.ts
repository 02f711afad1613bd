import { causeOf, log } from '../log';
import { onebotEvent } from '../models/onebot';
import { updateRecordById } from '../store/records';
import { botValues, recordBotStatus } from './receiving/bots';
import { apiCallOf, apiRootOf, callBotApi, type ApiCall, type Done } from './reacting/bot-api';
import { isExactNumber, numberText } from '../json/exact-json';
import { ONEBOT_LIMITS } from '../limits';
import { identityOf, storeOnce, type EventData } from './receiving/dedupe';
import { eventFields, type OneBotEvent } from './receiving/events';
import type { Delivery } from './keeping/delivery';
import { quickAnswer } from './reacting/rules';
import { senderOf } from './receiving/senders';

/** A signed event older than maxEventAgeSeconds at receipt: a replay, or a bot whose clock is wrong; never acted on. */
function tooOld(event: OneBotEvent, delivery: Delivery): boolean {
  const time = isExactNumber(event.time) ? Number(numberText(event.time)) : Number.NaN;
  return delivery.signed && time * 1000 < Date.parse(delivery.receivedAt) - ONEBOT_LIMITS.maxEventAgeSeconds * 1000;
}

interface Action {
  done?: Done;
  answer?: Record<string, unknown>;
  call?: { root: string; call: ApiCall };
}

/**
 * What to do about the rule that applied, and how: through the bot's HTTP API where its root
 * is configured; else as a quick operation, when the answer can still reach a sender that
 * reads it; else nothing, with the reason recorded.
 */
function chooseAction(
  event: OneBotEvent,
  selfId: unknown,
  answer: Record<string, unknown> | undefined,
  readsAnswer: boolean,
  live: boolean,
  old: boolean,
): Action {
  if (!answer) return {};
  if (old) return { done: { via: 'none', reason: 'too_old' } };
  const root = apiRootOf(selfId);
  const call = root !== undefined ? apiCallOf(event, answer) : undefined;
  if (root !== undefined && call) return { done: { via: 'api', ...call }, call: { root, call } };
  if (!live) return { done: { via: 'none', reason: 'received_while_database_unreachable' } };
  if (!readsAnswer) return { done: { via: 'none', reason: 'sender_ignores_answers' } };
  return { done: { via: 'quick_operation' }, answer };
}

/**
 * Decides, stores (once per identity) and acts on one verified event; returns the quick
 * operation to answer ({} for none). `live` is false for a delivery stored after the fact, whose
 * sender got its answer long ago. Database errors propagate: the caller keeps the delivery.
 */
export async function handleEvent(delivery: Delivery, event: OneBotEvent, live: boolean): Promise<Record<string, unknown>> {
  const selfIdHeader = delivery.headers['x-self-id']?.trim() ?? '';
  const fields = eventFields(event, selfIdHeader);
  const sender = senderOf(delivery.headers);
  const rule = await quickAnswer(event);
  const old = tooOld(event, delivery);
  const todo = chooseAction(event, fields.self_id, rule.answer, sender.readsAnswer, live, old);
  const data: EventData = {
    ...fields,
    received_at: delivery.receivedAt,
    delivery_id: delivery.id,
    ...(delivery.late ? { answered_late: true } : {}),
    sender: sender.name,
    event,
    ...(todo.answer ? { answer: todo.answer } : {}),
    ...(rule.rule_id ? { rule_id: rule.rule_id } : {}),
    ...(todo.done ? { done: todo.done } : {}),
  };
  const stored = await storeOnce(identityOf(event, fields.self_id), data, delivery.rawBody, sender, old);
  if (stored.outcome === 'replay') log.warn('onebot_replay_ignored', { id: stored.id, received_at: delivery.receivedAt, too_old: old });
  // Only a re-send, whose first answer may have been lost, gets that answer again: never a
  // second reply or API call, and never another event's answer.
  if (stored.outcome === 'resend' || stored.outcome === 'same_delivery') return (stored.record.answer as Record<string, unknown> | undefined) ?? {};
  if (stored.outcome !== 'new') return {};

  if (todo.call) {
    const done = await callBotApi(todo.call.root, todo.call.call);
    await updateRecordById(onebotEvent, { id: stored.id, values: { done } }).then(
      (outcome) => outcome === 'missing' && log.error('bot_api_result_not_stored', { id: stored.id, message: 'the event record is gone' }),
      (error: Error) => log.error('bot_api_result_not_stored', { id: stored.id, ...causeOf(error) }),
    );
  }
  const status = botValues(event, delivery.receivedAt);
  // The event is stored and its answer decided: a failed status write must not turn this into a
  // 5xx or a kept delivery, since a re-send would be a duplicate and never update the bot either.
  if (status) {
    await recordBotStatus(fields, status).catch((error: Error) => log.error('bot_status_failed', { self_id: String(fields.self_id), ...causeOf(error) }));
  }
  return todo.answer ?? {};
}
