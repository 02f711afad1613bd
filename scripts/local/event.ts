import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { FUNCTION_DESCRIPTORS, functionNamed } from '../../shared/http/functions';

/** What API Gateway knows of a request before it picks a route: the path exactly as sent. */
export interface GatewayRequest {
  method: string;
  rawPath: string;
  rawQueryString: string;
  headers: Record<string, string>;
  httpVersion: string;
  sourceIp: string;
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
  };
}

/**
 * The API Gateway HTTP API (payload 2.0) event for a request routed to `routeKey`, as AWS builds
 * it. The body always travels base64-encoded so that its exact bytes reach the handler;
 * `requestContext.timeEpoch` is when the request arrived (`receivedAt`, epoch ms).
 */
export function toEvent(
  request: GatewayRequest,
  body: Buffer,
  routeKey: string,
  params: Record<string, string> = {},
  receivedAt = Date.now(),
): APIGatewayProxyEventV2 {
  const { headers } = request;
  const now = new Date(receivedAt);
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey,
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    cookies: headers.cookie?.split('; '),
    headers,
    queryStringParameters: request.rawQueryString ? Object.fromEntries(new URLSearchParams(request.rawQueryString)) : undefined,
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
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length > 0 ? body.toString('base64') : undefined,
    isBase64Encoded: body.length > 0,
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
