import { ONEBOT_LIMITS } from '../limits';

/**
 * What the receiver needs to know about the implementation that posted, read from its headers
 * (each implementation's published source, README's compatibility table):
 * - go-cqhttp sends `User-Agent: CQHttp/<version>`; it is the only sender that re-sends, the
 *   same cached bytes, after a network error or its >= 5 s timeout.
 * - Lagrange.OneBot posts through .NET's HttpClient: no User-Agent, and
 *   `Content-Type: application/json; charset=utf-8`. It never reads the answer.
 * - NapCat, LLOneBot and anything else: read the answer, never re-send.
 */
export interface Sender {
  name: 'go-cqhttp' | 'Lagrange.OneBot' | 'other';
  /** Byte-identical deliveries within retryWindowSeconds are re-sends of one event. */
  retries: boolean;
  /** A quick operation in the answer is acted on. */
  readsAnswer: boolean;
}

export function senderOf(headers: Readonly<Record<string, string | undefined>>): Sender {
  const agent = headers['user-agent']?.trim() ?? '';
  if (/^CQHttp\//i.test(agent)) return { name: 'go-cqhttp', retries: true, readsAnswer: true };
  if (agent === '' && /^application\/json;\s*charset=utf-8$/i.test(headers['content-type']?.trim() ?? '')) {
    return { name: 'Lagrange.OneBot', retries: false, readsAnswer: false };
  }
  return { name: 'other', retries: false, readsAnswer: true };
}

/** Seconds within which a retrying sender's identical bytes are one event (see ONEBOT_LIMITS). */
export const RETRY_WINDOW_MS = ONEBOT_LIMITS.retryWindowSeconds * 1000;
