import type { Server } from 'node:http';
import { FUNCTION_DESCRIPTORS } from '../../shared/manifest/functions';
import { findModel } from '../../shared/models/catalog';
import { startLocalServer } from '../../scripts/local/server';
import { storedItems } from '../support/stored';

// The local server runs every function in one process, where a request can wait before its
// handler starts; in AWS each invocation has an execution environment of its own. The wait
// counts against the function's timeout (docs/local-server.md), which only the local server
// has to see to, so this suite runs it directly rather than through useApi.
let server: Server;
let url: string;

beforeAll(async () => {
  ({ server, url } = await startLocalServer({ port: 0, host: '127.0.0.1' }));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Blocks this process, server and all, as a saturated event loop would. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

test('a request that waits past its function timeout before its handler starts is answered 503 by the gateway, and nothing is stored', async () => {
  const timeoutMs = FUNCTION_DESCRIPTORS.create.lambda.timeoutSeconds * 1000;
  // Right after the gateway has taken the request in, the process is busy for longer than the
  // function's whole timeout: the handler would start with no time left.
  server.once('request', () => stall(timeoutMs + 500));
  const response = await fetch(`${url}/api/db/reaction/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'waited-too-long', data: { user_id: 1, content: 'late' } }),
  });
  expect({ status: response.status, body: await response.text() }).toEqual({ status: 503, body: '{"message":"Service Unavailable"}' });
  const reaction = (await findModel('reaction'))!;
  expect(JSON.stringify(await storedItems(reaction))).not.toContain('waited-too-long');
}, 60_000);

test('a request that waited less starts with the time left and is answered by its function', async () => {
  const timeoutMs = FUNCTION_DESCRIPTORS.count.lambda.timeoutSeconds * 1000;
  server.once('request', () => stall(timeoutMs / 2));
  const response = await fetch(`${url}/api/db/reaction/count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(response.status).toBe(200);
}, 60_000);
