import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { nestsDeeperThan } from '../../json/depth';
import { parseExactJson } from '../../json/exact-json';
import { LIMITS } from '../../limits';
import { ApiError } from '../errors';
import type { HttpRequest } from './request';

export function rawBodyOf(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * The body as sent, then as JSON with exact numbers. middy's http-json-body-parser uses
 * JSON.parse, which rounds integers past 2^53, so this replaces it. `parseBody: false` leaves
 * the parsing to the operation: the OneBot receiver checks a signature over the raw bytes first.
 */
export function readBody({ parseBody }: { parseBody: boolean }) {
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
        rawBody,
        body: parseBody ? parseJsonBody(rawBody.toString('utf8')) : {},
        params: (event.pathParameters as Record<string, string> | undefined) ?? {},
        // Lower-cased by @middy/http-header-normalizer, earlier in the chain.
        headers: (event.headers as Record<string, string> | undefined) ?? {},
        deadline: Date.now() + context.getRemainingTimeInMillis(),
      };
    },
  };
}

/** An empty (or blank) body is `{}`; nesting is checked before parsing, since the parser recurses. */
function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  if (nestsDeeperThan(text, LIMITS.maxJsonDepth)) {
    throw new ApiError('invalid_request', `The body nests arrays and objects deeper than ${LIMITS.maxJsonDepth} levels`, { max_depth: LIMITS.maxJsonDepth });
  }
  try {
    return parseExactJson(text);
  } catch (error) {
    throw new ApiError('malformed_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
}
