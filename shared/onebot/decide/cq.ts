/**
 * CQ-code text (OneBot 11 string message format): `[CQ:type,key=value]` codes between text in
 * which `&`, `[` and `]` are escaped (and `,` too inside code parameters). Literal brackets in
 * text are always escaped, so a `[` in CQ text always opens a code.
 */
const CQ_CODE = /\[CQ:[^\]]*\]/g;
const ENTITIES: Record<string, string> = { '&#91;': '[', '&#93;': ']', '&#44;': ',', '&amp;': '&' };

/** Text as the user typed it: `&#91;` back to `[`. One pass, so `&amp;#91;` stays `&#91;`. */
export function unescapeCq(text: string): string {
  return text.replace(/&#91;|&#93;|&#44;|&amp;/g, (entity) => ENTITIES[entity]);
}

export interface Segment {
  type: string;
  data: Record<string, unknown>;
}

interface LooseSegment {
  type?: unknown;
  data?: { text?: unknown } | null;
}

/**
 * Joins the text on either side of a removed code or segment. A client puts a space after a
 * mention (`@bot /roll 20` is `[CQ:at,qq=1] /roll 20`): whitespace meeting at the gap becomes
 * one space, so rules see what the person typed; whitespace typed inside the text is kept.
 */
function joinAtGap(pieces: ReadonlyArray<string>): string {
  let out = '';
  pieces.forEach((piece, i) => {
    if (i === 0) {
      out = piece;
      return;
    }
    const spaced = /\s$/.test(out) || /^\s/.test(piece);
    out = spaced ? `${out.trimEnd()} ${piece.trimStart()}` : out + piece;
  });
  return out.trim();
}

/** The text runs of an array message, split wherever a non-text segment stood. */
function textRuns(segments: ReadonlyArray<LooseSegment>): string[] {
  const runs = [''];
  for (const s of segments) {
    if (s?.type === 'text' && typeof s.data?.text === 'string') runs[runs.length - 1] += s.data.text;
    else if (runs[runs.length - 1] !== '') runs.push('');
  }
  return runs;
}

/**
 * The plain text of a message in either format, as the person typed it: CQ codes dropped and
 * escapes undone for strings, the `text` segments joined for arrays (or one segment alone);
 * trimmed, with the whitespace around a removed code collapsed. Anything else has no text.
 */
export function plainText(message: unknown): string {
  if (typeof message === 'string') return joinAtGap(message.split(CQ_CODE).map(unescapeCq));
  if (Array.isArray(message)) return joinAtGap(textRuns(message as LooseSegment[]));
  if (message !== null && typeof message === 'object') return plainText([message]);
  return '';
}

/** One CQ code's segment: `[CQ:face,id=178]` is `{type: "face", data: {id: "178"}}`. */
function codeSegment(code: string): Segment {
  const [type, ...params] = code.slice(4, -1).split(',');
  const data: Record<string, unknown> = {};
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq > 0) data[param.slice(0, eq)] = unescapeCq(param.slice(eq + 1));
  }
  return { type, data };
}

/**
 * A string reply as a segment array: CQ-code text parsed into its codes and text, or, with
 * auto_escape, the whole string as one text segment (what the bot would have sent).
 */
export function toSegments(reply: string, autoEscape: boolean): Segment[] {
  if (autoEscape) return [{ type: 'text', data: { text: reply } }];
  const segments: Segment[] = [];
  let last = 0;
  for (const match of reply.matchAll(CQ_CODE)) {
    if (match.index > last) segments.push({ type: 'text', data: { text: unescapeCq(reply.slice(last, match.index)) } });
    segments.push(codeSegment(match[0]));
    last = match.index + match[0].length;
  }
  if (last < reply.length) segments.push({ type: 'text', data: { text: unescapeCq(reply.slice(last)) } });
  return segments;
}
