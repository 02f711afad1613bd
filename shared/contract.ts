import type { Request } from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Caller } from './auth/authorize';
import type { ApiRequest, OperationResult } from './http/middleware';
import type { HttpResult } from './answer/respond';
import type { HeldKey } from './idempotency/keys';

/** What the chain's middlewares learn about a request and pass on, kept on the Lambda context as middy's own middlewares do. */
export interface HttpContext extends Context {
  /** Who calls (authorize.ts); undefined on public routes. */
  caller?: Caller;
  /** The request as operations see it (read-body.ts). */
  apiRequest?: ApiRequest;
  /** The Idempotency-Key this request holds (idempotency.ts), to settle once it has answered. */
  idempotencyClaim?: HeldKey;
  /** The first answer of a repeated Idempotency-Key, given instead of running the operation again. */
  replay?: HttpResult;
}

/** One invocation as the chain sees it: the operation's result until answer.ts turns it into an answer. */
export type HttpRequest = Request<APIGatewayProxyEventV2, HttpResult | OperationResult, Error, HttpContext>;
