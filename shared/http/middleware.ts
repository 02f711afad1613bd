import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { corsOrigins } from '../config';
import { withinInvocation } from '../invocation';
import { authorizeBodyScope, authorizeCaller } from './middleware/authorize';
import { cors } from './middleware/cors';
import { inEnvelope } from './middleware/answer';
import { idempotency } from '../idempotency/middleware';
import { lowerCaseResponseHeaders } from './middleware/header-case';
import { readBody } from './middleware/read-body';
import { requestLog } from './middleware/request-log';
import type { HttpContext } from '../contract';
import { ownRoutesOnly } from './middleware/route-guard';
import { securityHeaders } from './middleware/security-headers';
import type { HttpResult } from '../answer/respond';
import type { KeyRun } from '../idempotency/keys';
import { FUNCTION_DESCRIPTORS, type HttpFunctionName } from '../manifest/functions';

export interface ApiRequest {
  event: APIGatewayProxyEventV2;
  /** The body exactly as sent: API Gateway's base64 undone, or its UTF-8 text encoded back. */
  rawBody: Buffer;
  /** The parsed JSON body, numbers exact; {} when the body is empty. */
  body: unknown;
  params: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** When Lambda stops this invocation (epoch ms): long work stops short of it and says so. */
  deadline: number;
  /** With an Idempotency-Key: the run every request under the key shares (its writes recognise each other's). */
  keyRun?: KeyRun;
}

/** An answer of its own, or data for the success envelope. */
export type OperationResult = HttpResult | { data: unknown; status?: number };

export type Operation = (request: ApiRequest) => Promise<OperationResult>;

/**
 * The Lambda handler of one function: the operation behind a chain of small middlewares
 * (docs/architecture.md). Before the operation, in order: request header names lower-cased;
 * the route key checked (fail closed); a CORS preflight answered, when CORS_ORIGINS is set;
 * the caller authorized; the body read; what the body asks for authorized; an Idempotency-Key
 * claimed or its first answer replayed (writing functions). After it, or after
 * any throw, in order: the envelope, CORS headers, security headers, one case for header names;
 * then one request log line (request-log.ts).
 * Every call to another service in it ends at the invocation's cutoff (shared/deadline.ts).
 */
export function httpHandler(fn: HttpFunctionName, operation: Operation) {
  const origins = corsOrigins();
  // The request log is a plugin: it sees every answer, early ones included (request-log.ts).
  const handler = middy<APIGatewayProxyEventV2, HttpResult | OperationResult, Error, HttpContext>(requestLog())
    .use(lowerCaseResponseHeaders())
    .use(httpHeaderNormalizer())
    .use(securityHeaders())
    .use(ownRoutesOnly(fn))
    .use(origins.length > 0 ? [cors(origins)] : [])
    .use(inEnvelope())
    .use(authorizeCaller())
    .use(readBody({ parseBody: FUNCTION_DESCRIPTORS[fn].body === 'json' }))
    .use(authorizeBodyScope())
    .use(FUNCTION_DESCRIPTORS[fn].idempotent ? [idempotency()] : [])
    .handler(async (_event, context) => context.replay ?? operation(context.apiRequest!));
  // Inside the chain a result may still be data; answer.ts has made it an answer by the time it returns.
  const answer = handler as unknown as (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResult>;
  // Every call the chain makes is aborted before the timeout, so the function answers by itself.
  return (event: APIGatewayProxyEventV2, context: Context) => withinInvocation(context, () => answer(event, context));
}
