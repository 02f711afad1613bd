import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { ModelRecord } from '../../models/define';
import { onebotBot } from '../../models/onebot';
import { RecordExists } from '../../store/errors';
import { createRecords, updateRecords } from '../../store/records';
import type { EventFields, OneBotEvent } from './events';
import { isJsonObject } from '../../json/exact-json';

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
      status,
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
 * Updates the bot's record, creating it on the first event. Both writes are conditional: a
 * create that loses to a concurrent first event falls back to the update, so no event of
 * either is lost (the later write wins field by field).
 */
export async function recordBotStatus(fields: EventFields, values: BotValues): Promise<void> {
  const id = String(fields.self_id);
  const update = () => updateRecords(onebotBot, { filters: { id }, values });
  if ((await update()).matched > 0) return;
  try {
    await createRecords(onebotBot, [{ id, data: { self_id: fields.self_id, ...values } }], () => []);
  } catch (error) {
    if (!(error instanceof RecordExists)) throw error;
    await update();
  }
}
