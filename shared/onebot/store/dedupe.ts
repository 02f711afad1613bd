import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import { stringifyExactJson } from '../../json/exact-json';
import { unstorableKeyPath } from '../../json/storable';
import { ONEBOT_LIMITS } from '../../limits';
import { onebotEvent } from '../../models/onebot';
import { ItemTooLarge, RecordExists } from '../../store/errors';
import { createRecords, getOneRecord, type ApiRecord } from '../../store/records';
import { refusedForSize } from '../../store/sdk-errors';
import { BLOB_PREFIXES, putBlob } from './blobs';
import { withRetention } from './retention';
import { idText, type OneBotEvent } from '../event';
import type { Sender } from '../senders';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The value with every object's keys in one order: go-cqhttp writes an event's keys in Go's map order, which varies. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * Which deliveries can be one event (docs/onebot.md, "Duplicates"). The key is the bot and the
 * whole event, keys sorted: a message_id or a flag alone is no identity, since every sender
 * derives them from a 31/32-bit hash, a sequence, a second or a user (all four repeat). So two
 * events that share an id but differ in anything (text, time, user) are two records. Nothing
 * else is taken out: a re-send is the same cached bytes, and a kept delivery is its own bytes.
 * - natural: a message or request (it has an id): the same content is the same event;
 * - bare: anything else (notices, meta events): the same content can be two events of one
 *   second (two pokes), kept apart by generation (`<key>`, `<key>-1`, ...).
 */
export interface Identity {
  kind: 'natural' | 'bare';
  key: string;
}

export function identityOf(event: OneBotEvent, selfId: unknown): Identity {
  const natural =
    ((event.post_type === 'message' || event.post_type === 'message_sent') && idText(event.message_id) !== undefined) ||
    (event.post_type === 'request' && typeof event.flag === 'string' && event.flag !== '');
  return { kind: natural ? 'natural' : 'bare', key: sha256(`${idText(selfId) ?? ''}\n${stringifyExactJson(sortedKeys(event))}`) };
}

/** The record's data as written: ids may be exact NumberValues, which the model's zod types do not name. */
export type EventData = Record<string, unknown> & {
  received_at: string;
  delivery_id: string;
  answered_late?: true;
  answer?: Record<string, unknown>;
};

/**
 * What a delivery turned out to be:
 * - new: stored now (the only outcome that acts on the event);
 * - same_delivery: this very delivery was stored before (kept after a lost answer, replayed);
 * - resend: a re-send of a stored event whose answer came too late for the sender: it gets that answer again;
 * - duplicate: the same event delivered again when it cannot be a re-send: stored once, answered {};
 * - replay: identical to an event stored outside any re-send window, or signed and too old: not stored, answered {}.
 */
export type Outcome = 'new' | 'same_delivery' | 'resend' | 'duplicate' | 'replay';

export interface StoreResult {
  id: string;
  outcome: Outcome;
  /** The record this delivery belongs to: the one just made, or the one stored before. */
  record: Record<string, unknown>;
}

/**
 * Creates the record; an event DynamoDB cannot hold as a map keeps the body whole as a blob and
 * the record points at it, so a verified event is never refused for its size (over 400 KB) or
 * its keys (an empty, `__proto__` or `constructor` key: storable.ts).
 */
async function create(id: string, received: EventData, rawBody: Buffer): Promise<EventData> {
  const data = withRetention(received);
  if (unstorableKeyPath(data.event) === undefined) {
    try {
      await createRecords(onebotEvent, { records: [{ id, data }] }, { pathOf: () => [] });
      return data;
    } catch (error) {
      // The store's own size check, or DynamoDB's where an engine counts otherwise.
      if (!(error instanceof ItemTooLarge || refusedForSize(error))) throw error;
    }
  }
  const location = await putBlob(`${BLOB_PREFIXES.events}${id}.json`, rawBody);
  const { event: _kept, ...rest } = data;
  const pointed = { ...rest, event_ref: { location, bytes: rawBody.length, sha256: sha256(rawBody) } };
  await createRecords(onebotEvent, { records: [{ id, data: pointed }] }, { pathOf: () => [] });
  return pointed;
}

const WINDOW_MS = ONEBOT_LIMITS.identicalWindowSeconds * 1000;

/**
 * What a delivery is to an identical event stored before. go-cqhttp re-sends only a delivery it
 * got no answer to within its timeout, and the re-send comes after that timeout: so a copy is
 * its re-send only when the earlier of the two was answered late (`answered_late`, from the
 * arrival times API Gateway stamps) and came at least that timeout before. An answer given in
 * time but lost on the way back cannot be told from a second identical event, and is taken as one.
 * The other senders never re-send. Either may be the one stored first: a kept delivery is stored
 * after the live copies that came later.
 */
function judge(kind: Identity['kind'], stored: ApiRecord, data: EventData, sender: Sender, old: boolean): Outcome | 'another' {
  if (stored.delivery_id === data.delivery_id) return 'same_delivery';
  const storedAt = Date.parse(String(stored.received_at));
  const gap = Math.abs(storedAt - Date.parse(data.received_at));
  if (old || !(gap <= WINDOW_MS)) return 'replay';
  const first = storedAt <= Date.parse(data.received_at) ? stored : data;
  if (sender.resends && first.answered_late === true && gap >= sender.resends.timeoutMs && gap <= sender.resends.withinMs) return 'resend';
  return kind === 'natural' ? 'duplicate' : 'another';
}

/**
 * Stores the event unless it was stored before. The conditional create decides (no read first),
 * so two concurrent deliveries cannot both win. `old`: signed and past ONEBOT_LIMITS.maxEventAgeSeconds,
 * so an identical stored event makes it a replay whenever it came.
 */
export async function storeOnce(identity: Identity, data: EventData, rawBody: Buffer, sender: Sender, old: boolean): Promise<StoreResult> {
  const generations = identity.kind === 'bare' ? ONEBOT_LIMITS.maxIdenticalEvents : 1;
  for (let generation = 0; generation < generations; generation++) {
    const id = generation === 0 ? identity.key : `${identity.key}-${generation}`;
    try {
      return { id, outcome: 'new', record: await create(id, data, rawBody) };
    } catch (error) {
      if (!(error instanceof RecordExists)) throw error;
    }
    const stored = await getOneRecord(onebotEvent, { filters: { id }, consistent: true });
    const outcome = judge(identity.kind, stored, data, sender, old);
    if (outcome !== 'another') return { id, outcome, record: stored };
  }
  // The same bare event more than maxIdenticalEvents times within the window: each is its own event.
  const id = `${identity.key}-${ulid()}`;
  return { id, outcome: 'new', record: await create(id, data, rawBody) };
}
