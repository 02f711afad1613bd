import { isExactNumber, numberText } from '../../json/exact-json';
import { ONEBOT_LIMITS } from '../../limits';
import type { ModelRecord } from '../../models/model';
import type { onebotEvent } from '../../models/onebot';
import type { Delivery } from '../delivery';
import type { OneBotEvent } from '../event';
import { apiCallOf, apiRootOf, type ApiCall } from './api-call';

/** How an event was acted on, as its record keeps it. */
export type Done = NonNullable<ModelRecord<typeof onebotEvent>['done']>;

export interface Action {
  done?: Done;
  /** The quick operation to answer with. */
  answer?: Record<string, unknown>;
  /** The bot API call to make once the event is stored. */
  call?: { root: string; call: ApiCall };
}

/** A signed event older than maxEventAgeSeconds at receipt: a replay, or a bot whose clock is wrong; never acted on. */
export function tooOld(event: OneBotEvent, delivery: Pick<Delivery, 'signed' | 'receivedAt'>): boolean {
  const time = isExactNumber(event.time) ? Number(numberText(event.time)) : Number.NaN;
  return delivery.signed && time * 1000 < Date.parse(delivery.receivedAt) - ONEBOT_LIMITS.maxEventAgeSeconds * 1000;
}

export interface ActionInput {
  event: OneBotEvent;
  /** The bot the event is for: its API root, if configured, is where a call goes. */
  selfId: unknown;
  /** The quick operation of the rule that applied; none, nothing is done. */
  answer: Record<string, unknown> | undefined;
  /** The sender acts on a quick operation in the answer. */
  readsAnswer: boolean;
  /** False for a delivery stored after the fact, whose sender got its answer long ago. */
  live: boolean;
  /** tooOld: never acted on. */
  old: boolean;
}

/**
 * What to do about the rule that applied, and how: through the bot's HTTP API where its root
 * is configured; else as a quick operation, when the answer can still reach a sender that
 * reads it; else nothing, with the reason recorded.
 */
export function chooseAction({ event, selfId, answer, readsAnswer, live, old }: ActionInput): Action {
  if (!answer) return {};
  if (old) return { done: { via: 'none', reason: 'too_old' } };
  const root = apiRootOf(selfId);
  const call = root !== undefined ? apiCallOf(event, answer) : undefined;
  if (root !== undefined && call) return { done: { via: 'api', ...call }, call: { root, call } };
  if (!live) return { done: { via: 'none', reason: 'received_while_database_unreachable' } };
  if (!readsAnswer) return { done: { via: 'none', reason: 'sender_ignores_answers' } };
  return { done: { via: 'quick_operation' }, answer };
}
