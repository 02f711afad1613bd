import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import { onebotEvent } from '../models/onebot';
import { ONEBOT_LIMITS } from '../limits';
import { ItemTooLarge, RecordExists } from '../store/errors';
import { createRecords, getOneRecord, type ApiRecord } from '../store/records';
import { refusedForSize } from '../store/sdk-errors';
import { putBlob } from './blobs';
import { idText, type OneBotEvent } from './events';
import { RETRY_WINDOW_MS, type Sender } from './senders';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * Which deliveries are one event (README "Duplicates"):
 * - natural: a message is one per bot and message_id, a request one per bot and flag, however
 *   often and in whatever bytes it arrives;
 * - retry: anything else from a sender that re-sends (go-cqhttp) is one event per byte-identical
 *   body within the retry window;
 * - unique: anything else from a sender that never re-sends is its own event, even when its
 *   bytes equal another's (NapCat and LLOneBot write a fixed key order and `time` in seconds, so
 *   two pokes in one second are byte-identical and still two pokes).
 */
export type Identity = { kind: 'natural' | 'retry' | 'unique'; id: string };

export function identityOf(event: OneBotEvent, selfId: unknown, rawBody: Buffer, sender: Sender): Identity {
  const self = idText(selfId) ?? '';
  const messageId = idText(event.message_id);
  if ((event.post_type === 'message' || event.post_type === 'message_sent') && messageId !== undefined) {
    return { kind: 'natural', id: sha256(`${event.post_type}\n${self}\n${messageId}`) };
  }
  if (event.post_type === 'request' && typeof event.flag === 'string' && event.flag !== '') {
    return { kind: 'natural', id: sha256(`request\n${self}\n${event.flag}`) };
  }
  const bytes = sha256(rawBody);
  return sender.retries ? { kind: 'retry', id: bytes } : { kind: 'unique', id: `${bytes}-${ulid()}` };
}

/** The record's data as written: ids may be exact NumberValues, which the model's zod types do not name. */
export type EventData = Record<string, unknown> & { received_at: string; answer?: Record<string, unknown> };

export interface StoreResult {
  id: string;
  first: boolean;
  /** The record this delivery belongs to: the one just made, or the one stored before. */
  record: Record<string, unknown>;
}

/**
 * Creates the record; one too big for DynamoDB's 400 KB keeps the body whole as a blob and
 * the record points at it, so an event is never refused for its size once verified.
 */
async function create(id: string, data: EventData, rawBody: Buffer): Promise<EventData> {
  try {
    await createRecords(onebotEvent, [{ id, data }], () => []);
    return data;
  } catch (error) {
    // The store's own size check, or DynamoDB's where an engine counts otherwise.
    if (!(error instanceof ItemTooLarge || refusedForSize(error))) throw error;
  }
  const location = await putBlob(`onebot-events/${id}.json`, rawBody);
  const { event: _kept, ...rest } = data;
  const pointed = { ...rest, event_ref: { location, bytes: rawBody.length, sha256: sha256(rawBody) } };
  await createRecords(onebotEvent, [{ id, data: pointed }], () => []);
  return pointed;
}

const within = (a: unknown, b: string): boolean => typeof a === 'string' && Math.abs(Date.parse(a) - Date.parse(b)) <= RETRY_WINDOW_MS;

/**
 * Stores the event unless its identity was stored before. The conditional create decides (no
 * read first), so two concurrent deliveries cannot both win. Identical bytes from a retrying
 * sender outside the window of the record they hit are a new event: they take the next
 * generation of that id (`<sha256>-1`, `-2`, ...), so a re-send of that one is found again.
 */
export async function storeOnce(identity: Identity, data: EventData, rawBody: Buffer): Promise<StoreResult> {
  const generations = identity.kind === 'retry' ? ONEBOT_LIMITS.maxRetryGenerations : 1;
  for (let generation = 0; generation < generations; generation++) {
    const id = generation === 0 ? identity.id : `${identity.id}-${generation}`;
    try {
      return { id, first: true, record: await create(id, data, rawBody) };
    } catch (error) {
      if (!(error instanceof RecordExists)) throw error;
    }
    const stored: ApiRecord = await getOneRecord(onebotEvent, { filters: { id }, consistent: true });
    if (identity.kind !== 'retry' || within(stored.received_at, data.received_at)) return { id, first: false, record: stored };
  }
  // The same bytes over and over for longer than maxRetryGenerations windows: each is its own event.
  const id = `${identity.id}-${ulid()}`;
  return { id, first: true, record: await create(id, data, rawBody) };
}
