import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createHmac } from 'node:crypto';
import { dispatch } from '../local/route-selection';
import { lambdaContext, toEvent } from '../local/event';

/** The API Gateway event the local server would build for this request (scripts/local/event.ts). */
export function apiEvent(method: string, path: string, body?: string, headers: Record<string, string> = {}): APIGatewayProxyEventV2 {
  const bytes = Buffer.from(body ?? '');
  const allHeaders = {
    host: '127.0.0.1:3000',
    'user-agent': 'bench',
    ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(bytes.length) } : {}),
    ...headers,
  };
  const { key, params } = dispatch(method, path);
  return toEvent(
    { method, rawPath: path, rawQueryString: '', headers: allHeaders, httpVersion: '1.1', sourceIp: '203.0.113.7', port: 443, scheme: 'https' },
    bytes,
    key,
    params,
  );
}

export const benchContext = (functionName: string): Context => lambdaContext(functionName, 'bench');

/** The OneBot 11 contract (https://github.com/botuniverse/onebot-11, communication/http-post.md): the receiver's path and how a sender signs. */
export const ONEBOT_PATH = '/onebot/v11/';

export const onebotHeaders = (secret: string, selfId: number, raw: string): Record<string, string> => ({
  'content-type': 'application/json',
  'x-self-id': String(selfId),
  'x-signature': `sha1=${createHmac('sha1', secret).update(raw).digest('hex')}`,
});

/** A group message as go-cqhttp/NapCat send it; `n` makes message_id unique. */
export function groupMessage(selfId: number, n: number): string {
  return JSON.stringify({
    time: 1767225600 + n,
    self_id: selfId,
    post_type: 'message',
    message_type: 'group',
    sub_type: 'normal',
    message_id: 1_000_000 + n,
    group_id: 123456789,
    user_id: 10001 + (n % 50),
    anonymous: null,
    message: [{ type: 'text', data: { text: `bench message ${n}` } }],
    raw_message: `bench message ${n}`,
    font: 0,
    sender: { user_id: 10001 + (n % 50), nickname: 'bench', card: '', sex: 'unknown', age: 0, area: '', level: '1', role: 'member', title: '' },
  });
}
