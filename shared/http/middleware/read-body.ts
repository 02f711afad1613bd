import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LIMITS } from '../../limits';
import { ApiError } from '../../errors';
import { parseJsonBody, utf8Text } from '../../json/body';
import type { HttpRequest } from '../../contract';
import type { HttpFunction } from '../../manifest/functions';

function rawBodyOf(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * The body as text. Bytes that reach the function base64-encoded are decoded strictly: not UTF-8
 * is malformed_json. A body API Gateway passed as text (isBase64Encoded false, which it does for
 * a text content type such as application/json) was decoded before the function ran; what it did
 * with bytes that are not UTF-8 cannot be seen here, and the text is taken as it came.
 */
const textOf = (event: APIGatewayProxyEventV2, rawBody: Buffer): string => (event.isBase64Encoded ? utf8Text(rawBody) : (event.body ?? ''));

/** An empty (or blank) body is `{}`. */
const readJson = (text: string): unknown => (text.trim() === '' ? {} : parseJsonBody(text, LIMITS.maxJsonDepth, 'body'));

/**
 * The body as sent, then as JSON with exact numbers. middy's http-json-body-parser would round
 * integers past 2^53 without a reviver, and answer its own 415 and 422 errors, so this replaces it
 * (docs/decisions.md). A function whose body is not `json` (shared/manifest/functions.ts) is
 * left to parse it itself: the OneBot receiver checks a signature over the raw bytes first. The
 * request carries the function's descriptor on to the operation.
 */
export function readBody(descriptor: HttpFunction) {
  const parseBody = descriptor.body === 'json';
  return {
    before: async ({ event, context }: HttpRequest) => {
      const rawBody = rawBodyOf(event);
      if (rawBody.length > LIMITS.maxBodyBytes) {
        throw new ApiError('payload_too_large', `The body is ${rawBody.length} bytes; at most ${LIMITS.maxBodyBytes} are accepted`, {
          max_bytes: LIMITS.maxBodyBytes,
        });
      }
      context.apiRequest = {
        event,
        descriptor,
        rawBody,
        body: parseBody ? readJson(textOf(event, rawBody)) : {},
        params: (event.pathParameters as Record<string, string> | undefined) ?? {},
        // Lower-cased by @middy/http-header-normalizer, earlier in the chain.
        headers: (event.headers as Record<string, string> | undefined) ?? {},
        // Settled before the body is read (./authorize.ts runs first).
        caller: context.caller,
      };
    },
  };
}
