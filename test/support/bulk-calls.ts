import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { handler as updateHandler } from '../../functions/update/handler';
import { parseExactJson } from '../../shared/json/exact-json';
import { apiEvent } from '../../scripts/bench/requests';
import { lambdaContext } from '../../scripts/local/event';

export type Handler = typeof updateHandler;

/**
 * Calls a record function the way Lambda would, with `budgetMs` left before the function's
 * deadline (for a bulk write, the window in which it may start writes is budgetMs less the
 * reserve it keeps), as the caller with `headers`.
 */
export async function callWithBudget(handler: Handler, op: string, body: Record<string, unknown>, budgetMs: number, headers: Record<string, string>) {
  const event = apiEvent('POST', `/api/db/reaction/${op}`, JSON.stringify(body), headers);
  const started = Date.now();
  const result = (await handler(event, lambdaContext(op, 'test', started + budgetMs))) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: parseExactJson(result.body!) as { data: Record<string, any> }, ms: Date.now() - started }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
