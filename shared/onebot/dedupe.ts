import { createHash } from 'node:crypto';
import { ApiError } from '../http/errors';
import { onebotEvent } from '../models/onebot';
import { createRecords, getOneRecord } from '../store/records';
import type { EventFields, OneBotEvent } from './events';
import type { QuickAnswer } from './rules';

/** Byte-identical deliveries (go-cqhttp's retries, on any route) share one id. */
export const eventId = (rawBody: Buffer): string => createHash('sha256').update(rawBody).digest('hex');

/**
 * Stores the event with its answer unless a delivery of the same bytes was stored before; the
 * conditional create decides (no read first), so two concurrent deliveries cannot both win.
 * Returns the answer to give and whether this delivery was the first.
 */
export async function storeOnce(id: string, fields: EventFields, event: OneBotEvent, quick: QuickAnswer): Promise<QuickAnswer & { first: boolean }> {
  try {
    await createRecords(onebotEvent, [{ id, data: { ...fields, event, ...quick } }], () => []);
    return { ...quick, first: true };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
  }
  const stored = await getOneRecord(onebotEvent, { filters: { id }, consistent: true });
  return { answer: stored.answer as QuickAnswer['answer'], rule_id: stored.rule_id as string | undefined, first: false };
}
