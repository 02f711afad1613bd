import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AWS_LIMITS } from '../../shared/limits';
import { gatewayRequest, toEvent, travelsAsText } from './event';

/** What became of one Lambda invocation. */
export type Invocation =
  | { kind: 'answer'; result: APIGatewayProxyStructuredResultV2 }
  /** The function threw, crashed or ran past its timeout: Lambda reports an error to API Gateway. */
  | { kind: 'failed'; reason: string }
  /** The function's time was up before it could start: it never ran, nothing of the request happened. */
  | { kind: 'not-started' };

export interface GatewayOptions<T extends string> {
  port: number;
  host: string;
  /** The route key and function a request reaches (`$default` when no key matches). */
  route(method: string, rawPath: string): { key: string; target: T; params: Record<string, string> };
  invoke(target: T, event: APIGatewayProxyEventV2): Promise<Invocation>;
}

/**
 * Connection timeouts: a client that connects and sends nothing, or sends half a request, is
 * cut instead of holding a socket for minutes. Headers within 10 s, the whole request within
 * 30 s (API Gateway's integration limit), idle kept-alive connections after 5 s; the timeouts
 * are checked every second (Node's default is every 30 s).
 */
const CONNECTION_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 };
/**
 * Node refuses headers past 16 KiB with a bare 431 before any code of ours runs. API Gateway's
 * own cap (10,240 bytes of request line and headers) is not emulated, since its answer is not
 * documented; larger headers reach the function, which answers in the envelope.
 */
const MAX_HEADER_BYTES = 64 * 1024;

/** API Gateway's own answers, which it sends without any function running. */
const GATEWAY_ANSWERS = {
  tooLarge: { status: 413, body: '{"message":"Request Entity Too Large"}' },
  failed: { status: 500, body: '{"message":"Internal Server Error"}' },
  /** An HTTP API's answer when its integration gives none in time (docs/local-server.md). */
  unavailable: { status: 503, body: '{"message":"Service Unavailable"}' },
};

function sendGatewayAnswer(res: ServerResponse, answer: { status: number; body: string }): void {
  res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

/**
 * Lambda measures the whole event, the body as it travels inside (text, or base64 at 4/3 of the
 * bytes sent): the event must fit Lambda's limit.
 */
const fitsLambda = (event: APIGatewayProxyEventV2) => Buffer.byteLength(JSON.stringify(event)) <= AWS_LIMITS.lambdaPayloadBytes;

/**
 * The most body bytes a request may carry: the HTTP API's limit, or fewer when the body's bytes
 * alone would already make the event pass Lambda's (base64 carries 3 bytes in 4 characters;
 * text at least one byte per byte). Such a body is refused as it streams in, not read whole and
 * measured in its event: 100 concurrent bodies of 9.9 MB held 1 GB (issue 30). The event's
 * exact size is still checked once it is built (fitsLambda).
 */
function bodyLimit(req: IncomingMessage): number {
  const inEvent = travelsAsText(req.headers['content-type']) ? AWS_LIMITS.lambdaPayloadBytes : Math.floor((AWS_LIMITS.lambdaPayloadBytes * 3) / 4);
  return Math.min(AWS_LIMITS.gatewayPayloadBytes, inEvent);
}

/**
 * Refuses a body past `limit` as it streams in: nothing past the limit is kept, and a declared
 * Content-Length over it is refused before a byte is read.
 */
function readLimitedBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      chunks.length = 0;
      req.off('data', collect);
      resolve(undefined);
    };
    req.on('data', collect);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A 413 goes out as soon as the limit is passed, its connection to be closed; the rest of the
 * upload is read and dropped (never kept) and the answer ends with it. Ending the answer at once
 * made Node close the socket over the unread bytes, and a client still sending got EPIPE instead
 * of its 413. Past DISCARD_MS the connection is cut.
 */
const DISCARD_MS = 2_000;
function refuseUpload(req: IncomingMessage, res: ServerResponse): void {
  const { status, body } = GATEWAY_ANSWERS.tooLarge;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.write(body);
  const cut = setTimeout(() => req.destroy(), DISCARD_MS);
  cut.unref();
  req.on('data', () => undefined);
  req.once('end', () => res.end());
  req.once('close', () => clearTimeout(cut));
}

function sendResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2, requestId: string): void {
  const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  res.writeHead(result.statusCode ?? 200, {
    ...(result.headers as Record<string, string>),
    'apigw-requestid': requestId,
    ...(body ? { 'content-length': body.length } : {}),
  });
  res.end(body);
}

/**
 * An HTTP server that behaves as an API Gateway HTTP API in front of Lambda functions: exact
 * route-key selection with `$default` for everything else, the event AWS would build, its
 * payload limits and its answers when a function fails, times out or cannot start in time.
 */
export async function startGateway<T extends string>(options: GatewayOptions<T>): Promise<{ server: Server; url: string }> {
  const server = createServer({ ...CONNECTION_TIMEOUTS, maxHeaderSize: MAX_HEADER_BYTES }, async (req, res) => {
    // The gateway's clock starts as the request arrives: what follows here is the time an
    // invocation waits, which counts against its function's timeout (server.ts).
    const receivedAt = Date.now();
    try {
      const body = await readLimitedBody(req, bodyLimit(req));
      if (!body) return refuseUpload(req, res);
      const request = gatewayRequest(req);
      const { key, target, params } = options.route(request.method, request.rawPath);
      const event = toEvent(request, body, key, params, receivedAt);
      if (!fitsLambda(event)) return sendGatewayAnswer(res, GATEWAY_ANSWERS.tooLarge);
      const invocation = await options.invoke(target, event);
      if (invocation.kind === 'failed') return sendGatewayAnswer(res, GATEWAY_ANSWERS.failed);
      if (invocation.kind === 'not-started') return sendGatewayAnswer(res, GATEWAY_ANSWERS.unavailable);
      const answerBytes = Buffer.byteLength(JSON.stringify(invocation.result));
      if (answerBytes > AWS_LIMITS.lambdaPayloadBytes) return sendGatewayAnswer(res, GATEWAY_ANSWERS.failed);
      sendResult(res, invocation.result, event.requestContext.requestId);
    } catch {
      if (!res.headersSent) sendGatewayAnswer(res, GATEWAY_ANSWERS.failed);
      else res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}` };
}
