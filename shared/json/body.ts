import { nestsDeeperThan } from './depth';
import { parseExactJson } from './exact-json';
import { ApiError } from '../errors';

/**
 * A request body's JSON with exact numbers, or the error envelope's reason why not: nesting is
 * checked before parsing, since the parser recurses. `what` names the body in the messages ("body"
 * for the record API, "event" for the OneBot receiver, which has its own depth bound); what an
 * empty body means is the caller's to say.
 */
export function parseJsonBody(text: string, maxDepth: number, what: string): unknown {
  if (nestsDeeperThan(text, maxDepth)) {
    throw new ApiError('invalid_request', `The ${what} nests arrays and objects deeper than ${maxDepth} levels`, { max_depth: maxDepth });
  }
  try {
    return parseExactJson(text);
  } catch (error) {
    throw new ApiError('malformed_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Keeps a leading byte order mark in the text, as Buffer's decoding did: it is not JSON, and the parser says so. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body's bytes as text, or malformed_json when they are not UTF-8. Decoding with
 * replacement would turn every invalid sequence into U+FFFD, so "u8-\xff" and "u8-\xfe" would
 * be one id; JSON exchanged between systems is UTF-8 (RFC 8259, section 8.1).
 */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('malformed_json', 'The body is not valid UTF-8');
  }
}
