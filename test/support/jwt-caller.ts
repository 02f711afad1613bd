import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';
import { lambdaContext, toEvent } from '../../scripts/local/event';
import { dispatch } from '../../scripts/local/route-selection';
import type { Reply } from './api';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * A request as a deployment with the JWT authorizer delivers it (infra/api.ts): API Gateway has
 * verified the token and hands the function its claims and scopes in
 * `requestContext.authorizer.jwt`, which no client can write. The local server has no authorizer,
 * so the test builds that event itself and calls the routed function's handler in this process.
 */
export async function postWithJwt(path: string, body: unknown, jwt: { claims: Record<string, unknown>; scopes: string[] }): Promise<Reply> {
  const { key, fn, params } = dispatch('POST', path);
  const { handler } = (await import(`../../functions/${fn}/handler`)) as { handler: Handler };
  const event = toEvent(
    {
      method: 'POST',
      rawPath: path,
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      httpVersion: '1.1',
      sourceIp: '203.0.113.7',
      port: 443,
      scheme: 'https',
    },
    Buffer.from(stringifyExactJson(body)),
    key,
    params,
  );
  (event.requestContext as { authorizer?: unknown }).authorizer = { jwt };
  const result = await handler(event, lambdaContext(fn, event.requestContext.requestId));
  const text = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? '');
  let parsed: unknown;
  try {
    parsed = text ? parseExactJson(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: result.statusCode ?? 200, headers: new Headers(result.headers as Record<string, string>), body: parsed, text };
}
