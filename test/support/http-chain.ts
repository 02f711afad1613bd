import { lambdaContext, toEvent } from '../../scripts/local/event';
import type { Operation } from '../../shared/contract';
import type { httpHandler } from '../../shared/http/middleware';

/**
 * The middy chain around an operation, called without a database or a server: the unit tests
 * of each middleware in shared/http/middleware/ look at its part of the answer.
 */
export const LIST_KEY = 'POST /api/db/{model_name}/list';

/** A payload-2.0 event as API Gateway sends it (route key `METHOD path` unless given). */
export const request = (method: string, rawPath: string, headers: Record<string, string> = {}, body = '', routeKey = `${method} ${rawPath}`) =>
  toEvent({ method, rawPath, rawQueryString: '', headers, httpVersion: '1.1', sourceIp: '127.0.0.1', port: 3000, scheme: 'http' }, Buffer.from(body), routeKey);

export const call = (handler: ReturnType<typeof httpHandler>, event: ReturnType<typeof request>) => handler(event, lambdaContext('list', 'r1'));

/** An operation that answers what reached it. */
export const echo: Operation = async ({ headers, body }) => ({ data: { headers, body } });
