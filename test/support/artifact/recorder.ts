import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through in front of the DynamoDB engine that notes the action of every call
 * (`X-Amz-Target: DynamoDB_20120810.PutItem` is `dynamodb:PutItem`), so the tests can hold the
 * actions a bundle really sends against the ones its role is granted; a transaction counts as
 * the single-item actions it holds.
 */
const TRANSACT_ACTIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

export async function startRecordingProxy(engine: string, actions: Set<string>): Promise<{ server: Server; endpoint: string }> {
  const upstream = new URL(engine);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const action = String(req.headers['x-amz-target'] ?? '')
      .split('.')
      .pop();
    // IAM governs a transaction's actions by the single-item action each one is (AWS: "Using IAM with DynamoDB transactions").
    if (action === 'TransactWriteItems') {
      for (const item of JSON.parse(body.toString('utf8')).TransactItems as Array<Record<string, unknown>>) {
        for (const kind of Object.keys(item)) actions.add(`dynamodb:${TRANSACT_ACTIONS[kind] ?? kind}`);
      }
    } else if (action) actions.add(`dynamodb:${action}`);
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
