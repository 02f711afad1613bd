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

interface Segment {
  type?: unknown;
  data?: { text?: unknown } | null;
}

/**
 * The plain text of a message in either format: CQ codes dropped and escapes undone for
 * strings, the `text` segments joined for arrays (or one segment alone). Anything else has no text.
 */
export function plainText(message: unknown): string {
  if (typeof message === 'string') return unescapeCq(message.replace(CQ_CODE, ''));
  if (Array.isArray(message)) {
    return (message as Segment[])
      .filter((s) => s?.type === 'text' && typeof s.data?.text === 'string')
      .map((s) => s.data!.text as string)
      .join('');
  }
  if (message !== null && typeof message === 'object') return plainText([message]);
  return '';
}
