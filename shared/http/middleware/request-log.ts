import { log } from '../../log';
import type { HttpRequest, HttpResult } from '../../contract';

/** The envelope's stable error code of an error answer; never its message, which may quote the body. */
function errorCodeOf(answer: HttpResult | undefined): string | undefined {
  if (answer === undefined || (answer.statusCode ?? 200) < 400 || typeof answer.body !== 'string') return undefined;
  try {
    const code = (JSON.parse(answer.body) as { data?: { error?: unknown } }).data?.error;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The models a transaction's operations name (the first 10), where a route names none; undefined for any other body. */
function transactionModels(body: unknown): string[] | undefined {
  const operations = (body as { operations?: unknown } | null | undefined)?.operations;
  if (!Array.isArray(operations)) return undefined;
  const names = operations.map((op) => (op as { model?: unknown } | null)?.model).filter((name): name is string => typeof name === 'string');
  return [...new Set(names)].slice(0, 10);
}

/**
 * One JSON line per request at `info` (docs/architecture.md): who asked for what and how it was
 * answered, never a body, a credential, a subject or a claim value. A middy plugin rather than a middleware, because
 * middy's `requestEnd` runs after every answer the function gives, an early one (a CORS preflight)
 * and the error envelope included, where a middleware's `after` is skipped by an early answer.
 * `debug` adds what the request's size and an idempotent replay were. It reads only what every
 * invocation has, so that logging can never change an answer.
 */
export function requestLog() {
  const started = new WeakMap<object, number>();
  return {
    // middy calls this with the request (@middy/core's index.js), though its types declare no argument.
    requestStart: ((request: HttpRequest) => {
      started.set(request, performance.now());
    }) as () => void,
    requestEnd: (middyRequest: unknown) => {
      const request = middyRequest as HttpRequest;
      const { event, context } = request;
      // By now envelope.ts has made the result an answer.
      const answer = request.response as HttpResult | undefined;
      const start = started.get(request);
      const status = answer?.statusCode ?? 500;
      // Its request id comes with every line (shared/log.ts).
      log.info('request', {
        method: event.requestContext?.http?.method,
        route: event.routeKey,
        model: event.pathParameters?.model_name,
        models: transactionModels(context.apiRequest?.body),
        status,
        error: errorCodeOf(answer),
        latency_ms: start === undefined ? undefined : Math.round(performance.now() - start),
        scopes: context.caller ? [...context.caller.scopes].sort() : undefined,
        via: context.caller?.via,
        // A digest (shared/auth/authorize.ts): who asked, told apart without a sub or claim value, which may be personal data.
        subject: context.caller?.subject,
      });
      log.debug('request_detail', {
        body_bytes: context.apiRequest?.rawBody.length ?? 0,
        body_encoding: event.isBase64Encoded ? 'base64' : 'text',
        answer_bytes: typeof answer?.body === 'string' ? Buffer.byteLength(answer.body) : 0,
        replayed: context.replay !== undefined,
      });
    },
  };
}
