import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through in front of the DynamoDB engine that notes the action of every call
 * (`X-Amz-Target: DynamoDB_20120810.PutItem` is `dynamodb:PutItem`), so the tests can hold the
 * actions a bundle really sends against the ones its role is granted.
 */
export async function startRecordingProxy(engine: string, actions: Set<string>): Promise<{ server: Server; endpoint: string }> {
  const upstream = new URL(engine);
  const server = createServer((req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target) actions.add(`dynamodb:${target.split('.').pop()}`);
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
