import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { ModelRecord } from '../../models/model';
import { onebotBot } from '../../models/onebot';
import { updateRecordById } from '../../store/records';
import type { EventFields, OneBotEvent } from '../event';
import { isJsonObject } from '../../json/exact-json';
import { unstorableKeyPath } from '../../json/storable';
import { causeOf, log } from '../../log';

type BotValues = Partial<ModelRecord<typeof onebotBot>>;

const asBoolean = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** What a lifecycle or heartbeat event says about its bot; undefined for every other event. */
export function botValues(event: OneBotEvent, receivedAt: string): BotValues | undefined {
  if (event.post_type !== 'meta_event') return undefined;
  if (event.meta_event_type === 'heartbeat') {
    const status = isJsonObject(event.status) ? event.status : undefined;
    // Only a number or numeric text: Number() throws on an object whose toString is not a
    // function, and a JS number past 2^53 is refused by the SDK's marshaller.
    const raw = event.interval;
    const interval = typeof raw === 'number' || typeof raw === 'string' || raw instanceof NumberValue ? Number(String(raw)) : NaN;
    const values: BotValues = {
      online: asBoolean(status?.online),
      good: asBoolean(status?.good),
      interval_ms: interval > 0 && interval <= Number.MAX_SAFE_INTEGER ? interval : undefined,
      // A status with a key DynamoDB cannot hold is not copied: the event keeps it whole.
      status: status && unstorableKeyPath(status) === undefined ? status : undefined,
      last_heartbeat: receivedAt,
      last_event_at: receivedAt,
    };
    return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  }
  if (event.meta_event_type === 'lifecycle' && typeof event.sub_type === 'string') {
    const online = event.sub_type === 'disable' ? false : event.sub_type === 'enable' || event.sub_type === 'connect' ? true : undefined;
    return { lifecycle: event.sub_type, ...(online !== undefined ? { online } : {}), last_event_at: receivedAt };
  }
  return undefined;
}

/**
 * Sets the bot's status fields from a lifecycle or heartbeat event, creating its record on the
 * first event. Both writes are conditional (the record exists; the id is new): a create that
 * loses to a concurrent first event sets the fields after all, so no event of either is lost (the
 * later write wins field by field). Never throws: the event is stored and its answer decided, so
 * a failed status write must not turn into a 5xx or a kept delivery, since a re-send would be a
 * duplicate and never update the bot either.
 */
export async function recordBotStatus(event: OneBotEvent, fields: EventFields, receivedAt: string): Promise<void> {
  const values = botValues(event, receivedAt);
  if (!values) return;
  await updateRecordById(onebotBot, { id: String(fields.self_id), values, orCreate: { self_id: fields.self_id, ...values } }).catch((error: Error) =>
    log.error('bot_status_failed', { self_id: String(fields.self_id), ...causeOf(error) }),
  );
}
