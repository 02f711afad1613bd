import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { FUNCTION_DESCRIPTORS, functionNamed } from '../../shared/manifest/functions';

/** What API Gateway knows of a request before it picks a route: the path exactly as sent. */
export interface GatewayRequest {
  method: string;
  rawPath: string;
  rawQueryString: string;
  headers: Record<string, string>;
  httpVersion: string;
  sourceIp: string;
  /** The port the request came in on, for `x-forwarded-port`. */
  port: number;
  /** The scheme the client used, for `x-forwarded-proto` (http locally; https behind AWS). */
  scheme: 'http' | 'https';
}

/**
 * A header sent more than once reaches the function as its values joined with a bare comma, as
 * HTTP API does (docs/decisions.md); Node's own `req.headers` would join them with ", ".
 */
export function gatewayRequest(req: IncomingMessage): GatewayRequest {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values !== undefined) headers[name] = values.join(',');
  }
  // The request target as sent: no URL parser, which would fold `//`, `..` and encodings.
  const target = req.url ?? '/';
  const query = target.indexOf('?');
  return {
    method: req.method ?? 'GET',
    rawPath: query < 0 ? target : target.slice(0, query),
    rawQueryString: query < 0 ? '' : target.slice(query + 1),
    headers,
    httpVersion: req.httpVersion,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    port: req.socket.localPort ?? 0,
    scheme: 'http',
  };
}

/**
 * Media types an HTTP API passes to a function as text (isBase64Encoded false); every other body,
 * and a body without a content type, reaches it base64-encoded (docs/decisions.md, "Events as API
 * Gateway builds them").
 */
const TEXT_TYPE = /^(text\/[^;\s]*|application\/(json|javascript|xml))\s*(;|$)/i;

/** Whether a body of this type travels in the event as text (when its bytes are UTF-8), not base64. */
export const travelsAsText = (contentType: string | undefined): boolean => contentType !== undefined && TEXT_TYPE.test(contentType);

/**
 * The body as the event carries it. A text body whose bytes are not UTF-8 travels base64-encoded:
 * AWS does not document what it does with them, and this keeps them exact, so the function's own
 * check (malformed_json) decides instead of a replacement the harness would invent.
 */
function eventBody(body: Buffer, contentType: string | undefined): Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'> {
  if (body.length === 0) return { body: undefined, isBase64Encoded: false };
  if (travelsAsText(contentType) && isUtf8(body)) return { body: body.toString('utf8'), isBase64Encoded: false };
  return { body: body.toString('base64'), isBase64Encoded: true };
}

/** Repeated query parameters, joined with a comma as payload 2.0 does (the last one is not kept alone). */
function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (!rawQueryString) return undefined;
  const joined: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    joined[name] = name in joined ? `${joined[name]},${value}` : value;
  }
  return joined;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');
/** `requestContext.time` as HTTP API writes it, in UTC: "12/Mar/2020:19:03:58 +0000". */
export function gatewayTime(at: Date): string {
  const time = `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}`;
  return `${two(at.getUTCDate())}/${MONTHS[at.getUTCMonth()]}/${at.getUTCFullYear()}:${time} +0000`;
}

/**
 * The API Gateway HTTP API (payload 2.0) event for a request routed to `routeKey`, as AWS builds
 * it: cookies moved out of the headers into `cookies`, the `x-forwarded-*` headers added, repeated
 * query parameters joined, the body as text or base64 by its content type.
 * `requestContext.timeEpoch` is when the request arrived (`receivedAt`, epoch ms).
 */
export function toEvent(
  request: GatewayRequest,
  body: Buffer,
  routeKey: string,
  params: Record<string, string> = {},
  receivedAt = Date.now(),
): APIGatewayProxyEventV2 {
  const { cookie, ...sent } = request.headers;
  const forwardedFor = sent['x-forwarded-for'];
  const headers: Record<string, string> = {
    ...sent,
    // A proxy in front adds its client; API Gateway appends the address it saw.
    'x-forwarded-for': forwardedFor ? `${forwardedFor}, ${request.sourceIp}` : request.sourceIp,
    'x-forwarded-proto': request.scheme,
    'x-forwarded-port': String(request.port),
  };
  const now = new Date(receivedAt);
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey,
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    cookies: cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: queryParameters(request.rawQueryString),
    pathParameters: Object.keys(params).length > 0 ? params : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split(/[.:]/)[0],
      http: {
        method: request.method,
        path: request.rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: gatewayTime(now),
      timeEpoch: now.getTime(),
    },
    ...eventBody(body, headers['content-type']),
  };
}

/**
 * The Lambda context a handler gets, with its function's settings: its remaining time counts
 * down to `deadline` (by default its timeout from now), as in Lambda.
 */
export function lambdaContext(functionName: string, requestId: string, deadline?: number): Context {
  const { lambda } = FUNCTION_DESCRIPTORS[functionNamed(functionName)];
  const ends = deadline ?? Date.now() + lambda.timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(lambda.memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, ends - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
