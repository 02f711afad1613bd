import { log } from '../log';
import { actThroughApi } from './act/bot-api';
import { recordBotStatus } from './act/bot-status';
import { chooseAction, tooOld, type Action } from './decide/action';
import { quickAnswer, type QuickAnswer } from './decide/rules';
import type { Delivery } from './delivery';
import { eventFields, type EventFields, type OneBotEvent } from './event';
import { senderOf, type Sender } from './senders';
import { identityOf, storeOnce, type EventData } from './store/dedupe';

export interface Decision {
  fields: EventFields;
  sender: Sender;
  /** Signed and too old to act on: tooOld. */
  old: boolean;
  todo: Action;
  /** The event's record as it is stored, the decision in it. */
  data: EventData;
}

/**
 * What is decided about one verified event before anything is stored, given the rule that
 * applies: who sent it, what to do and the record that says so. `live` is false for a delivery
 * stored after the fact, whose sender got its answer long ago.
 */
export function decideEvent(delivery: Delivery, event: OneBotEvent, rule: QuickAnswer, live: boolean): Decision {
  const fields = eventFields(event, delivery.headers['x-self-id']?.trim() ?? '');
  const sender = senderOf(delivery.headers);
  const old = tooOld(event, delivery);
  const todo = chooseAction({ event, selfId: fields.self_id, answer: rule.answer, readsAnswer: sender.readsAnswer, live, old });
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
  return { fields, sender, old, todo, data };
}

/**
 * Decides, stores (once per identity) and acts on one verified event; returns the quick
 * operation to answer ({} for none). Database errors propagate: the caller keeps the delivery.
 */
export async function handleEvent(delivery: Delivery, event: OneBotEvent, live: boolean): Promise<Record<string, unknown>> {
  const { fields, sender, old, todo, data } = decideEvent(delivery, event, await quickAnswer(event), live);

  const stored = await storeOnce(identityOf(event, fields.self_id), data, delivery.rawBody, sender, old);
  if (stored.outcome === 'replay') log.warn('onebot_replay_ignored', { id: stored.id, received_at: delivery.receivedAt, too_old: old });
  // Only a re-send, whose first answer may have been lost, gets that answer again: never a
  // second reply or API call, and never another event's answer.
  if (stored.outcome === 'resend' || stored.outcome === 'same_delivery') return (stored.record.answer as Record<string, unknown> | undefined) ?? {};
  if (stored.outcome !== 'new') return {};

  if (todo.call) await actThroughApi(stored.id, todo.call);
  await recordBotStatus(event, fields, delivery.receivedAt);
  return todo.answer ?? {};
}
