import { connect } from 'node:net';
import { useApi } from '../support/api';

const api = useApi();

/** Opens a raw connection, writes `text`, and resolves with the milliseconds until the server closed it. */
function heldFor(text: string): Promise<{ ms: number; answer: string }> {
  const { port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ ms: Date.now() - started, answer }));
    setTimeout(() => socket.destroy(new Error('still open after 20 s')), 20_000).unref();
  });
}

describe('the local server cuts idle and half-sent connections', () => {
  test('a silent connection, half a request line and half the headers are closed within about 10 s', async () => {
    const held = await Promise.all([heldFor(''), heldFor('POST /api/db/reaction/cre'), heldFor('POST /api/db/reaction/count HTTP/1.1\r\nHost: x\r\n')]);
    for (const { ms } of held) expect(ms).toBeLessThan(13_000);
    expect(held[2].answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);

  test('an idle kept-alive connection is closed about 5 s after its last answer', async () => {
    const { ms, answer } = await heldFor('GET /api/db/health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(ms).toBeLessThan(8_000);
  }, 30_000);
});
