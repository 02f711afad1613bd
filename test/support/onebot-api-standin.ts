import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ApiCallSeen {
  action: string;
  params: Record<string, unknown>;
  authorization?: string;
}

/**
 * A stand-in for a bot's OneBot 11 HTTP API (POST /<action>, JSON parameters, answers
 * `{status, retcode, data}`), as go-cqhttp, NapCat, LLOneBot and Lagrange serve it: a wrong or
 * missing access token is refused (401 without a token, 403 with a wrong one).
 */
export async function startBotApi(token: string): Promise<{ url: string; calls: ApiCallSeen[]; close(): Promise<void> }> {
  const calls: ApiCallSeen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const authorization = req.headers.authorization;
      const action = (req.url ?? '/').replace(/^\/+/, '').split('?')[0];
      calls.push({ action, params: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), authorization });
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (authorization === undefined) return answer(401, { status: 'failed', retcode: 1403 });
      if (authorization !== `Bearer ${token}`) return answer(403, { status: 'failed', retcode: 1403 });
      if (!['send_msg', 'set_friend_add_request', 'set_group_add_request'].includes(action)) return answer(404, { status: 'failed', retcode: 1404 });
      return answer(200, { status: 'ok', retcode: 0, data: action === 'send_msg' ? { message_id: 90001 } : null });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
