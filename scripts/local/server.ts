import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { matchRoute, type FunctionName } from '../../shared/http/routes';
import { errorResult } from '../../shared/http/respond';
import { lambdaContext, toEvent } from './event';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Hard cap on what the local server buffers; the handlers enforce the API's own, smaller limit. */
const MAX_LOCAL_BODY = 10 * 1024 * 1024;

/**
 * Connection timeouts (issue 12): a client that connects and sends nothing, or sends half a
 * request, is cut instead of holding a socket for minutes. Headers within 10 s, the whole
 * request within 30 s (API Gateway's integration limit), idle kept-alive connections after 5 s;
 * the timeouts are checked every second (Node's default is every 30 s).
 */
const CONNECTION_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 };

const loaded = new Map<FunctionName, Promise<Handler>>();

/** Loads a function's handler on its first request, as Lambda does on a cold start. */
function handlerOf(name: FunctionName): Promise<Handler> {
  let handler = loaded.get(name);
  if (!handler) {
    handler = import(`../../functions/${name}/handler`).then((module) => module.handler as Handler);
    loaded.set(name, handler);
  }
  return handler;
}

/**
 * An HTTP server that turns each request into the event API Gateway would send and invokes
 * the same Lambda handler that is deployed for its route (the fallback for unknown routes).
 */
export async function startLocalServer(options: { port: number; host: string }): Promise<{ server: Server; url: string }> {
  const server = createServer(CONNECTION_TIMEOUTS, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_LOCAL_BODY) chunks.push(chunk);
    });
    req.on('end', async () => {
      let result: APIGatewayProxyStructuredResultV2;
      try {
        const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
        const match = matchRoute(req.method ?? 'GET', url.pathname);
        const event = toEvent(req, url, size > MAX_LOCAL_BODY ? Buffer.alloc(size) : Buffer.concat(chunks), match);
        const name = match.kind === 'found' ? match.route.function : 'fallback';
        result = await (await handlerOf(name))(event, lambdaContext(name, event.requestContext.requestId));
      } catch (error) {
        result = errorResult(error);
      }
      const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
      res.writeHead(result.statusCode ?? 200, { ...(result.headers as Record<string, string>), ...(body ? { 'content-length': body.length } : {}) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}` };
}
