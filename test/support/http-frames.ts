/**
 * Cuts an HTTP/1.1 byte stream into whole messages (head and body), as a proxy that acts per
 * request or per answer needs: a body is framed by Content-Length or chunked transfer coding,
 * the two framings the SDK and the engines use. Only what the steerable proxy meets is read.
 */
export interface HttpMessage {
  /** The start line and header fields, lower-cased names. */
  startLine: string;
  headers: Map<string, string>;
  body: Buffer;
  /** The message's bytes exactly as they came. */
  raw: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Feeds chunks in, calls `onMessage` with each message once it is whole, in order. */
export function httpFramer(onMessage: (message: HttpMessage) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const message = takeMessage(pending);
      if (!message) return;
      pending = pending.subarray(message.raw.length);
      onMessage(message);
    }
  };
}

function takeMessage(bytes: Buffer): HttpMessage | undefined {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const [startLine, ...fields] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers = new Map<string, string>();
  for (const field of fields) {
    const colon = field.indexOf(':');
    headers.set(field.slice(0, colon).trim().toLowerCase(), field.slice(colon + 1).trim());
  }
  const bodyStart = headEnd + HEAD_END.length;
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const end = chunkedEnd(bytes, bodyStart);
    if (end === undefined) return undefined;
    return { startLine, headers, body: dechunk(bytes.subarray(bodyStart, end)), raw: bytes.subarray(0, end) };
  }
  const end = bodyStart + Number(headers.get('content-length') ?? 0);
  if (bytes.length < end) return undefined;
  return { startLine, headers, body: bytes.subarray(bodyStart, end), raw: bytes.subarray(0, end) };
}

/** Where a chunked body ends (after its last chunk and trailers), or undefined while it is not all here. */
function chunkedEnd(bytes: Buffer, start: number): number | undefined {
  let at = start;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) {
      const trailersEnd = bytes.indexOf(HEAD_END, lineEnd);
      const blank = bytes.subarray(lineEnd, lineEnd + 4).equals(HEAD_END) ? lineEnd : trailersEnd;
      return blank < 0 ? undefined : blank + HEAD_END.length;
    }
    at = lineEnd + 2 + size + 2;
    if (bytes.length < at) return undefined;
  }
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
