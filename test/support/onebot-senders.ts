import { createHash, createHmac } from 'node:crypto';
import { request } from 'node:http';
import { crc32 } from 'node:zlib';

/**
 * Emulations of the four OneBot 11 implementations' HTTP POST reporters, each following its
 * published source (each named below, with its file): the headers it sets, how it
 * serialises and signs, whether and when it re-sends, and how it reads the answer. Written
 * from those sources' behaviour, not their code.
 *
 * - go-cqhttp `server/http.go` (HTTPClient.onBotPushEvent) and `coolq/api.go`
 *   (CQHandleQuickOperation)
 * - NapCat `src/onebot/network/http-client.ts` (OB11HttpClientAdapter.emitEventAsync)
 * - LLOneBot `src/onebot11/connect/http.ts` (OB11HttpPost.emitEvent)
 * - Lagrange.OneBot `Lagrange.OneBot/Core/Network/Service/HttpPostService.cs` (SendJsonAsync)
 *
 * And how each derives the ids a receiver might take for identities (`message_id`, `flag`),
 * below: all four repeat.
 */

export type Json = Record<string, unknown>;
export type Segment = { type: string; data: Record<string, unknown> };

/** What the bot did after posting: the message it sent, if any, and request handling. */
export interface Outcome {
  /** Deliveries made (go-cqhttp re-sends after a network error or timeout). */
  attempts: number;
  /** The last HTTP status, or undefined when no answer came. */
  status?: number;
  /** The quick operation the bot acted on; undefined when it acted on none. */
  quick?: Json;
  /** The message it sent as a reply, as the recipient sees it (see `rendered`). */
  sent?: string;
  /** Whether the sent reply quotes the message it answers (a `reply` segment first). */
  quoted?: boolean;
  /** approve/reject sent for a request; `remark` only where the implementation applies it. */
  handled?: { approve: boolean; remark?: string; reason?: string };
  /** What the implementation logs as a warning. */
  warnings: string[];
}

export interface SenderEmulation {
  name: string;
  /** The exact bytes it would post for this event. */
  serialize(event: Json): Buffer;
  /** Posts the event (with retries where the sender has them) and acts on the answer as the sender does. */
  post(url: string, event: Json): Promise<Outcome>;
  /** Posts these bytes once more, as a re-send of the same cached event. */
  resend(url: string, event: Json, bytes: Buffer): Promise<Outcome>;
}

interface Answer {
  status: number;
  text: string;
}

/** One POST with exactly these headers; `chunked` sends no Content-Length (NapCat). */
function postOnce(url: string, headers: Record<string, string>, body: Buffer, timeoutMs: number, chunked = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: chunked ? headers : { ...headers, 'Content-Length': String(body.length) }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    if (chunked) {
      // Two writes: Node then sends Transfer-Encoding: chunked, as NapCat's request does.
      req.write(body.subarray(0, 1));
      req.end(body.subarray(1));
    } else req.end(body);
  });
}

const hmacHex = (secret: string, body: Buffer): string => createHmac('sha1', Buffer.from(secret, 'utf8')).update(body).digest('hex');

/** CQ-code text parsed the way the bots do, for rendering what a recipient sees. */
function cqSegments(text: string): Segment[] {
  const out: Segment[] = [];
  const unescapeCq = (s: string) => s.replace(/&#91;/g, '[').replace(/&#93;/g, ']').replace(/&#44;/g, ',').replace(/&amp;/g, '&');
  let rest = text;
  while (rest.length > 0) {
    const at = rest.indexOf('[CQ:');
    const end = at >= 0 ? rest.indexOf(']', at) : -1;
    if (at < 0 || end < 0) {
      out.push({ type: 'text', data: { text: unescapeCq(rest) } });
      break;
    }
    if (at > 0) out.push({ type: 'text', data: { text: unescapeCq(rest.slice(0, at)) } });
    const [type, ...params] = rest.slice(at + 4, end).split(',');
    out.push({ type, data: Object.fromEntries(params.map((p) => [p.slice(0, p.indexOf('=')), unescapeCq(p.slice(p.indexOf('=') + 1))])) });
    rest = rest.slice(end + 1);
  }
  return out;
}

/**
 * A sent message as its recipient reads it: text as is, `@<qq>` for a mention, `[type]` for
 * anything else. A string is CQ-code text unless auto_escape, then literal text.
 */
export function rendered(message: unknown, autoEscape: boolean): string {
  const segments: Segment[] =
    typeof message === 'string'
      ? autoEscape
        ? [{ type: 'text', data: { text: message } }]
        : cqSegments(message)
      : Array.isArray(message)
        ? (message as Segment[])
        : [message as Segment];
  return segments.map((s) => (s.type === 'text' ? String(s.data.text) : s.type === 'at' ? `@${String(s.data.qq)}` : `[${s.type}]`)).join('');
}

/** How an implementation's quick-operation handler differs from the common part (reply, approve). */
interface QuickHandling {
  /** Which replies it sends as a quote of the message (a leading `reply` segment). */
  quotes: (event: Json) => boolean;
  /** Whether a friend request's `remark` is applied. */
  remark: boolean;
}

/** Acts on a quick operation: the common part of all four, with each one's differences. */
function actOn(event: Json, quick: Json, reply: (message: unknown, autoEscape: boolean) => string | undefined, handling: QuickHandling): Partial<Outcome> {
  if (event.post_type === 'message' && quick.reply !== undefined) {
    return { quick, sent: reply(quick.reply, quick.auto_escape === true), quoted: handling.quotes(event) };
  }
  if (event.post_type === 'request' && typeof quick.approve === 'boolean') {
    return {
      quick,
      handled: {
        approve: quick.approve,
        ...(quick.remark !== undefined && handling.remark && event.request_type === 'friend' ? { remark: String(quick.remark) } : {}),
        ...(quick.reason !== undefined ? { reason: String(quick.reason) } : {}),
      },
    };
  }
  return { quick };
}

// ---- How each derives its ids (its own source; re-stated here, not copied) ----

/** A 32-bit signed integer from the first four bytes of a digest, big-endian. */
const int32Of = (digest: Buffer): number => digest.readInt32BE(0);

/**
 * NapCat (`packages/napcat-common/src/message-unique.ts`, createUniqueMsgId): the MD5 of
 * "<msgId>|<chatType>|<peerUid>", its first four bytes with the top bit cleared: 31 bits.
 */
export function napCatMessageId(msgId: string, chatType: number, peerUid: string): number {
  const digest = createHash('md5').update(`${msgId}|${chatType}|${peerUid}`).digest();
  digest[0] &= 0x7f;
  return int32Of(digest);
}

/**
 * LLOneBot (`src/main/store.ts`, createMsgShortId): the MD5 of
 * "<chatType>-<peerUid>-<msgSeq>-<msgRandom>-<msgTime>", first four bytes as a signed int32.
 */
export function llOneBotMessageId(m: { chatType: number; peerUid: string; msgSeq: string; msgRandom: string; msgTime: string }): number {
  return int32Of(createHash('md5').update(`${m.chatType}-${m.peerUid}-${m.msgSeq}-${m.msgRandom}-${m.msgTime}`).digest());
}

/** go-cqhttp (`db/database.go`, ToGlobalID): the CRC-32 (IEEE) of "<group or user>-<message seq>", as an int32. */
export const goCqhttpMessageId = (code: number, seq: number): number => crc32(`${code}-${seq}`) | 0;

/** Lagrange.OneBot (`Lagrange.OneBot/Database/MessageRecord.cs`, CalcMessageHash): the low 16 bits of the sequence, then the low 16 bits of the random. */
export const lagrangeMessageId = (random: number, seq: number): number => ((seq & 0xffff) << 16) | (random & 0xffff);

/** NapCat's friend-request flag (`packages/napcat-onebot/index.ts`, onBuddyReqChange): the request time in seconds. */
export const napCatFriendFlag = (requestSeconds: number): string => String(requestSeconds);

/** Lagrange.OneBot's friend-request flag (`Lagrange.OneBot/Core/Notify/NotifyService.cs`, OnFriendRequestEvent): the requester's uid. */
export const lagrangeFriendFlag = (requesterUid: string): string => requesterUid;

/** The first two inputs (0, 1, 2, ...) whose ids are equal: a birthday search, ~55k tries for a 31-bit id. */
export function firstCollision(idOf: (n: number) => number, limit = 1_000_000): [number, number] {
  const seen = new Map<number, number>();
  for (let n = 0; n < limit; n++) {
    const id = idOf(n);
    const earlier = seen.get(id);
    if (earlier !== undefined) return [earlier, n];
    seen.set(id, n);
  }
  throw new Error(`no collision in ${limit} ids`);
}

// ---- go-cqhttp ----

/** Go's encoding/json text: compact, `&<>` and U+2028/9 escaped, other non-ASCII raw; a trailing newline. */
function goJson(value: Json, order: (keys: string[]) => string[]): string {
  const ordered = Object.fromEntries(order(Object.keys(value)).map((k) => [k, value[k]]));
  return `${JSON.stringify(ordered).replace(/[&<>\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

export interface GoCqhttpOptions {
  selfId: number;
  secret?: string;
  /** `timeout` in seconds, at least 5 (smaller values are raised to 5), as milliseconds here so tests can shorten it. */
  timeoutMs?: number;
  maxRetries?: number;
  retriesIntervalMs?: number;
  /** Key order of the event map; go-cqhttp's is not fixed. */
  order?: (keys: string[]) => string[];
}

export function goCqhttp(options: GoCqhttpOptions): SenderEmulation {
  const { selfId, secret, timeoutMs = 5000, maxRetries = 3, retriesIntervalMs = 1500, order = (keys) => [...keys].reverse() } = options;
  const headers = (bytes: Buffer): Record<string, string> => ({
    'X-Self-ID': String(selfId),
    'User-Agent': 'CQHttp/4.15.0',
    'Content-Type': 'application/json',
    ...(secret ? { 'X-Signature': `sha1=${hmacHex(secret, bytes)}` } : {}),
  });

  /** CQHandleQuickOperation: the at_sender handling is the part the receiver must not trip over. */
  const quickOperation = (event: Json, quick: Json): Partial<Outcome> => {
    // CQHandleQuickOperation passes only flag and approve to CQProcessFriendRequest: no remark.
    if (event.post_type !== 'message' || quick.reply === undefined) return actOn(event, quick, () => undefined, { quotes: () => false, remark: false });
    const autoEscape = quick.auto_escape === true;
    const at = quick.at_sender === true && event.message_type === 'group' && event.anonymous == null;
    const qq = String((event.sender as Json | undefined)?.user_id ?? event.user_id);
    let message = quick.reply;
    if (at && Array.isArray(message)) message = [{ type: 'at', data: { qq } }, ...message];
    else if (at && typeof message === 'string') {
      // `"[CQ:at,qq=N]" + reply` is formatted into JSON text unescaped and parsed back: the
      // string ends at the reply's first `"`.
      const text = `"[CQ:at,qq=${qq}]${message}"`;
      const close = text.slice(1).search(/(?<!\\)"/) + 1;
      message = JSON.parse(text.slice(0, close + 1));
    }
    return { quick, sent: rendered(message, autoEscape), quoted: false };
  };

  const deliver = async (url: string, event: Json, bytes: Buffer): Promise<Outcome> => {
    let attempts = 0;
    for (let i = 0; i <= maxRetries; i++) {
      attempts++;
      try {
        const answer = await postOnce(url, headers(bytes), bytes, Math.max(timeoutMs, 0));
        // Any status; any valid JSON body is a quick operation.
        let quick: Json | undefined;
        try {
          quick = JSON.parse(answer.text) as Json;
        } catch {
          quick = undefined;
        }
        return { attempts, status: answer.status, warnings: [], ...(quick && typeof quick === 'object' ? quickOperation(event, quick) : {}) };
      } catch {
        // Network error or timeout: the same cached bytes again after the interval.
        if (i < maxRetries) await new Promise((r) => setTimeout(r, retriesIntervalMs));
      }
    }
    return { attempts, warnings: ['上报 Event 数据失败: 停止上报：已达重试上限'] };
  };

  return {
    name: 'go-cqhttp',
    serialize: (event) => Buffer.from(goJson({ time: Math.floor(Date.now() / 1000), self_id: selfId, ...event }, order), 'utf8'),
    post(url, event) {
      return deliver(url, event, this.serialize(event));
    },
    resend: (url, event, bytes) => deliver(url, event, bytes),
  };
}

// ---- NapCat and LLOneBot: Node, JSON.stringify in the event object's own key order ----

export interface NodeSenderOptions {
  selfId: number;
  /** NapCat and LLOneBot call the HMAC secret `token`. */
  token?: string;
  /** The event's `time`, seconds: fixed in tests that need two events in one second. */
  time?: () => number;
}

const nodeHeaders = (selfId: number, token: string | undefined, bytes: Buffer): Record<string, string> => ({
  'Content-Type': 'application/json',
  'x-self-id': String(selfId),
  ...(token ? { 'x-signature': `sha1=${hmacHex(token, bytes)}` } : {}),
});

export function napCat(options: NodeSenderOptions): SenderEmulation {
  const { selfId, token, time = () => Math.floor(Date.now() / 1000) } = options;
  const once = async (url: string, event: Json, bytes: Buffer): Promise<Outcome> => {
    // RequestUtil.HttpGetText: http.request, chunked body; a non-2xx status rejects.
    const answer = await postOnce(url, nodeHeaders(selfId, token, bytes), bytes, 120_000, true);
    if (answer.status < 200 || answer.status >= 300) return { attempts: 1, status: answer.status, warnings: ['新消息事件HTTP上报返回快速操作失败'] };
    const quick = answer.text ? (JSON.parse(answer.text) as Json) : {};
    // packages/napcat-onebot/api/quick-action.ts: a group reply quotes the message; a friend
    // request is handled by its flag alone (no remark).
    return { attempts: 1, status: answer.status, warnings: [], ...actOn(event, quick, rendered, { quotes: (e) => e.message_type === 'group', remark: false }) };
  };
  return {
    name: 'NapCat',
    serialize: (event) => Buffer.from(JSON.stringify({ time: time(), self_id: selfId, ...event }), 'utf8'),
    post(url, event) {
      return once(url, event, this.serialize(event));
    },
    resend: once,
  };
}

export function llOneBot(options: NodeSenderOptions): SenderEmulation {
  const { selfId, token, time = () => Math.floor(Date.now() / 1000) } = options;
  const once = async (url: string, event: Json, bytes: Buffer): Promise<Outcome> => {
    // fetch(): its own User-Agent, a Content-Length; res.json() whatever the status.
    const response = await fetch(url, { method: 'POST', headers: nodeHeaders(selfId, token, bytes), body: bytes });
    try {
      const quick = (await response.json()) as Json;
      // src/onebot11/helper/quickOperation.ts: every reply quotes the message; a friend
      // request's remark is set on the new friend (setBuddyRemark).
      return { attempts: 1, status: response.status, warnings: [], ...actOn(event, quick, rendered, { quotes: () => true, remark: true }) };
    } catch {
      return { attempts: 1, status: response.status, warnings: ['HTTP 事件上报返回数据解析失败'] };
    }
  };
  return {
    name: 'LLOneBot',
    serialize: (event) => Buffer.from(JSON.stringify({ time: time(), self_id: selfId, ...event }), 'utf8'),
    post(url, event) {
      return once(url, event, this.serialize(event));
    },
    resend: once,
  };
}

// ---- Lagrange.OneBot ----

/** System.Text.Json's default encoder: compact; non-ASCII and `"&'+<>` as upper-case \uXXXX. */
function dotnetJson(value: unknown): string {
  if (typeof value === 'string') {
    return `"${[...value]
      .map((ch) => {
        const escapeOne = (code: number) => `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
        if (ch === '\\') return '\\\\';
        if (ch === '\n') return '\\n';
        if (ch === '\r') return '\\r';
        if (ch === '\t') return '\\t';
        if ('"&\'+<>'.includes(ch) || ch.charCodeAt(0) < 0x20) return escapeOne(ch.charCodeAt(0));
        if (ch.charCodeAt(0) > 0x7e) return [...Array(ch.length).keys()].map((i) => escapeOne(ch.charCodeAt(i))).join('');
        return ch;
      })
      .join('')}"`;
  }
  if (Array.isArray(value)) return `[${value.map(dotnetJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${dotnetJson(k)}:${dotnetJson(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export function lagrange(options: { selfId: number; secret?: string }): SenderEmulation {
  const { selfId, secret } = options;
  const once = async (url: string, _event: Json, bytes: Buffer): Promise<Outcome> => {
    const headers: Record<string, string> = {
      'X-Self-ID': String(selfId),
      'Content-Type': 'application/json; charset=utf-8',
      // Convert.ToHexString: upper-case hex.
      ...(secret ? { 'X-Signature': `sha1=${hmacHex(secret, bytes).toUpperCase()}` } : {}),
    };
    // HttpClient.SendAsync: the response is never read, so no quick operation ever happens.
    const answer = await postOnce(url, headers, bytes, 100_000);
    return { attempts: 1, status: answer.status, warnings: [] };
  };
  return {
    name: 'Lagrange.OneBot',
    serialize: (event) => Buffer.from(dotnetJson({ time: Math.floor(Date.now() / 1000), self_id: selfId, ...event }), 'utf8'),
    post(url, event) {
      return once(url, event, this.serialize(event));
    },
    resend: once,
  };
}
