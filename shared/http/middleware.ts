import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { authorizeBody, authorizeRoute } from '../auth/authorize';
import { ApiError } from './errors';
import { errorResult, successResult, type HttpResult } from './respond';
import { parseExactJson } from '../json/exact-json';
import { nestsDeeperThan } from '../json/depth';
import { LIMITS } from '../limits';
import { FUNCTION_DESCRIPTORS, type HttpFunctionName } from './functions';
import { routeKeysOf } from './routes';

export interface ApiRequest {
  event: APIGatewayProxyEventV2;
  /** The body exactly as sent (API Gateway's base64 undone). */
  rawBody: Buffer;
  /** The parsed JSON body, numbers exact; {} when the body is empty. */
  body: unknown;
  params: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** When Lambda stops this invocation (epoch ms): long work stops short of it and says so. */
  deadline: number;
}

export type Operation = (request: ApiRequest) => Promise<HttpResult | { data: unknown; status?: number }>;

function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers'] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function rawBodyOf(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * Reads the request: size limit, then JSON with exact numbers. middy's http-json-body-parser
 * uses JSON.parse, which rounds integers past 2^53, so this middleware replaces it.
 */
export function readRequest(event: APIGatewayProxyEventV2, parseBody = true, deadline = Infinity): ApiRequest {
  const rawBody = rawBodyOf(event);
  if (rawBody.length > LIMITS.maxBodyBytes) {
    throw new ApiError('payload_too_large', `The body is ${rawBody.length} bytes; at most ${LIMITS.maxBodyBytes} are accepted`, { max_bytes: LIMITS.maxBodyBytes });
  }
  let body: unknown = {};
  if (parseBody && rawBody.length > 0) {
    const text = rawBody.toString('utf8');
    if (text.trim() === '') body = {};
    else if (nestsDeeperThan(text, LIMITS.maxJsonDepth)) {
      throw new ApiError('invalid_request', `The body nests arrays and objects deeper than ${LIMITS.maxJsonDepth} levels`, { max_depth: LIMITS.maxJsonDepth });
    } else {
      try {
        body = parseExactJson(text);
      } catch (error) {
        throw new ApiError('malformed_json', `The body is not valid JSON: ${(error as Error).message}`);
      }
    }
  }
  return { event, rawBody, body, params: event.pathParameters as Record<string, string> ?? {}, headers: lowerCaseHeaders(event.headers), deadline };
}

/**
 * The Lambda handler of one function: middy chain, one error mapper, envelopes out. It answers
 * only the route keys the function is deployed behind: an event for any other key is a 404,
 * so a wrong integration or a direct invocation can never reach an operation unauthorized.
 */
export function httpHandler(fn: HttpFunctionName, operation: Operation) {
  const served = new Set(routeKeysOf(fn));
  const parseBody = FUNCTION_DESCRIPTORS[fn].body === 'json';
  return middy<APIGatewayProxyEventV2, HttpResult, Error, Context>()
    .use({
      onError: async (request) => {
        request.response = errorResult(request.error);
      },
    })
    .handler(async (event, context) => {
      if (!served.has(event.routeKey)) throw new ApiError('route_not_found', `No route ${event.requestContext?.http?.method} ${event.rawPath}`);
      // Who calls is settled before the body is read: a stranger learns nothing from 413 or 400.
      const caller = await authorizeRoute(event);
      const request = readRequest(event, parseBody, Date.now() + context.getRemainingTimeInMillis());
      authorizeBody(caller, request.body);
      const result = await operation(request);
      return 'statusCode' in result ? result : successResult(result.data, result.status);
    });
}
