import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { corsOrigins } from '../config';
import type { HttpContext, HttpResult, Operation, OperationResult } from '../contract';
import { countMisconfiguration } from '../health/emf';
import { idempotency } from '../idempotency/middleware';
import { withinInvocation } from '../invocation';
import { FUNCTION_DESCRIPTORS, type HttpFunctionName } from '../manifest/functions';
import { DEFAULT_ROUTE_FUNCTION } from '../manifest/routes';
import { withDefaultRoute } from './fallback';
import { inEnvelope } from './middleware/envelope';
import { authorizeBodyScope, authorizeCaller } from './middleware/authorize';
import { cors } from './middleware/cors';
import { lowerCaseResponseHeaders } from './middleware/header-case';
import { readBody } from './middleware/read-body';
import { requestLog } from './middleware/request-log';
import { ownRoutesOnly } from './middleware/route-guard';
import { securityHeaders } from './middleware/security-headers';

/**
 * The Lambda handler of function `fn`: its operation behind a chain of small middlewares
 * (docs/architecture.md), each told what `fn` is from shared/manifest/functions.ts. Before the
 * operation, in order: request header names lower-cased; the route key checked (fail closed); a
 * CORS preflight answered, when CORS_ORIGINS is set; the caller authorized against the
 * function's scope; the body read; what the body asks for authorized; an Idempotency-Key
 * claimed or its first answer replayed (writing functions). After it, or after any throw, in
 * order: the envelope, CORS headers, security headers, one case for header names; then one
 * request log line (request-log.ts). The function behind `$default` answers the requests no
 * route takes with 404/405 (fallback.ts). The whole chain runs in the invocation's context
 * (shared/invocation.ts): every call to another service in it ends at the invocation's cutoff,
 * and every log line names its request.
 */
export function httpHandler(fn: HttpFunctionName, operation: Operation) {
  const descriptor = FUNCTION_DESCRIPTORS[fn];
  const served = fn === DEFAULT_ROUTE_FUNCTION ? withDefaultRoute(operation) : operation;
  const origins = corsOrigins();
  // The request log is a plugin: it sees every answer, early ones included (request-log.ts).
  const handler = middy<APIGatewayProxyEventV2, HttpResult | OperationResult, Error, HttpContext>(requestLog())
    .use(lowerCaseResponseHeaders())
    .use(httpHeaderNormalizer())
    .use(securityHeaders())
    .use(ownRoutesOnly(fn))
    .use(origins.length > 0 ? [cors(origins)] : [])
    // A misconfiguration is counted for its alarm (infra/alarms.ts) here, where the chain is assembled.
    .use(inEnvelope({ onMisconfigured: countMisconfiguration }))
    .use(authorizeCaller(descriptor))
    .use(readBody(descriptor))
    .use(authorizeBodyScope())
    .use(descriptor.idempotent ? [idempotency()] : [])
    .handler(async (_event, context) => context.replay ?? served(context.apiRequest!));
  // Inside the chain a result may still be data; envelope.ts has made it an answer by the time it returns.
  const answer = handler as unknown as (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResult>;
  return (event: APIGatewayProxyEventV2, context: Context) => withinInvocation(context, () => answer(event, context));
}
