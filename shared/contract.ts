import type { Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from './auth/authorize';
import type { KeyRun } from './store/types';
import type { HttpFunction } from './manifest/functions';

/**
 * The contract between a function's chain (shared/http/middleware.ts) and the operation it
 * serves: what an operation is given and what it gives back. Apart from the chain that assembles
 * it, so that the middlewares, the operations and the chain all import it from below.
 */

/** An answer as API Gateway takes it, status and headers always set. */
export type HttpResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };

export interface ApiRequest {
  event: APIGatewayProxyEventV2;
  /** What the function serving it is (shared/manifest/functions.ts): its scope, whether it writes, ... */
  descriptor: HttpFunction;
  /** The body exactly as sent: API Gateway's base64 undone, or its UTF-8 text encoded back. */
  rawBody: Buffer;
  /** The parsed JSON body, numbers exact; {} when the body is empty. */
  body: unknown;
  params: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** With an Idempotency-Key: the run every request under the key shares (its writes recognise each other's). */
  keyRun?: KeyRun;
  /** Who calls (shared/auth/authorize.ts); undefined on a public route. The model's rules read it (shared/access/). */
  caller?: Caller;
}

/** An answer of its own, or data for the success envelope (with headers of its own: a record's ETag). */
export type OperationResult = HttpResult | { data: unknown; status?: number; headers?: Record<string, string> };

/** A function's HTTP operation: what it does with a request once the chain has let it through. */
export type Operation = (request: ApiRequest) => Promise<OperationResult>;

/** What the chain's middlewares learn about a request and pass on, kept on the Lambda context as middy's own middlewares do. */
export interface HttpContext extends Context {
  /** Who calls (shared/http/middleware/authorize.ts); undefined on public routes. */
  caller?: Caller;
  /** The request as operations see it (shared/http/middleware/read-body.ts). */
  apiRequest?: ApiRequest;
  /** The first answer of a repeated Idempotency-Key, given instead of running the operation again. */
  replay?: HttpResult;
}

/** One invocation as the chain sees it: the operation's result until shared/http/middleware/envelope.ts turns it into an answer. */
export type HttpRequest = Request<APIGatewayProxyEventV2, HttpResult | OperationResult, Error, HttpContext>;
