/**
 * What the receiver needs to know about the implementation that posted, read from its headers
 * (each implementation's published source, docs/onebot.md's compatibility table):
 * - go-cqhttp sends `User-Agent: CQHttp/<version>`; it is the only sender that re-sends, the
 *   same cached bytes, after a network error or no answer within its >= 5 s timeout, 1.5 s after
 *   the failure; never after an answer, whatever its status.
 * - LLOneBot posts with Node's fetch, whose default User-Agent is `node`, and never re-sends.
 * - Lagrange.OneBot posts through .NET's HttpClient: no User-Agent, and
 *   `Content-Type: application/json; charset=utf-8`. It never reads the answer.
 * - NapCat (no User-Agent of its own) and anything else: read the answer, never re-send.
 */
export interface Sender {
  name: 'go-cqhttp' | 'LLOneBot' | 'Lagrange.OneBot' | 'other';
  /** When it re-sends a delivery whose answer it did not get; absent: it never does. */
  resends?: ResendSchedule;
  /** A quick operation in the answer is acted on. */
  readsAnswer: boolean;
}

/** When a sender re-sends, from its retry loop: only a delivery it got no answer to in time. */
export interface ResendSchedule {
  /**
   * It waits this long from sending for an answer: a delivery answered later was a failed attempt,
   * and only such a delivery is re-sent. No re-send arrives sooner after the first's arrival.
   */
  timeoutMs: number;
  /** No re-send arrives later: every attempt timing out, with the longest timeout allowed for. */
  withinMs: number;
}

/**
 * go-cqhttp (server/http.go, onBotPushEvent): an attempt fails only when `client.Do` returns an
 * error, a network error or no answer within `timeout` (5 s, smaller values raised to 5); any
 * answer, 5xx too, ends the loop. Then `retries-interval` (1500 ms) and the same bytes, up to
 * `max-retries` (3) times: the last comes 3 x (5 + 1.5) = 19.5 s after the first attempt; 60 s
 * allows for a timeout raised to 18 s.
 */
export const GO_CQHTTP_RESENDS: ResendSchedule = { timeoutMs: 5000, withinMs: 60_000 };

export function senderOf(headers: Readonly<Record<string, string | undefined>>): Sender {
  const agent = headers['user-agent']?.trim() ?? '';
  if (/^CQHttp\//i.test(agent)) return { name: 'go-cqhttp', resends: GO_CQHTTP_RESENDS, readsAnswer: true };
  if (agent === 'node') return { name: 'LLOneBot', readsAnswer: true };
  if (agent === '' && /^application\/json;\s*charset=utf-8$/i.test(headers['content-type']?.trim() ?? '')) {
    return { name: 'Lagrange.OneBot', readsAnswer: false };
  }
  return { name: 'other', readsAnswer: true };
}
