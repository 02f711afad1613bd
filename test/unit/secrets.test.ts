import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secretSetting } from '../../shared/secrets';
import { spyOnLog } from '../support/log';

// shared/secrets.ts in AWS: GetSecretValue through the Parameters and Secrets Lambda Extension
// on localhost (infra/secrets.ts), with the session token, cached for five minutes.
let server: Server;
const seen: Array<{ url: string; token: string | undefined }> = [];
let answer: { status: number; body: string } | 'never' = { status: 200, body: '{}' };
/** Requests the stand-in left unanswered, resolved when the caller closes their connection. */
const abandoned: Array<Promise<void>> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', token: req.headers['x-aws-parameters-secrets-token'] as string | undefined });
    if (answer === 'never') abandoned.push(new Promise((resolve) => req.socket.on('close', () => resolve())));
    else res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String((server.address() as AddressInfo).port);
  process.env.AWS_SESSION_TOKEN = 'session-token';
});

afterAll(async () => {
  for (const name of ['CURSOR_SECRET_SECRET_ARN', 'ONEBOT_SECRET_SECRET_ARN', 'ONEBOT_ACCESS_TOKEN']) delete process.env[name];
  delete process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT;
  delete process.env.AWS_SESSION_TOKEN;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('a secret is read from the extension with the session token, then served from the cache', async () => {
  const arn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:CURSOR_SECRET-Ab12Cd';
  process.env.CURSOR_SECRET_SECRET_ARN = arn;
  answer = { status: 200, body: JSON.stringify({ ARN: arn, Name: 'CURSOR_SECRET', SecretString: 's3cr3t', VersionId: 'v1' }) };
  expect(await secretSetting('CURSOR_SECRET')).toBe('s3cr3t');
  expect(await secretSetting('CURSOR_SECRET')).toBe('s3cr3t');
  expect(seen).toEqual([{ url: `/secretsmanager/get?secretId=${encodeURIComponent(arn)}`, token: 'session-token' }]);
});

test('an extension error is secret_unavailable, logged, never a database error', async () => {
  process.env.ONEBOT_SECRET_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:ONEBOT_SECRET-Ab12Cd';
  answer = { status: 400, body: 'AccessDeniedException' };
  const log = spyOnLog('error');
  await expect(secretSetting('ONEBOT_SECRET')).rejects.toMatchObject({ code: 'secret_unavailable' });
  expect(JSON.parse(log.mock.calls[0][0] as string)).toMatchObject({ code: 'secret_unavailable', secret: 'ONEBOT_SECRET', name: 'AccessDeniedException' });
  log.mockRestore();
});

test('an extension that never answers is secret_unavailable once its time is up, and the connection is closed, not kept', async () => {
  process.env.ONEBOT_SECRET_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:ONEBOT_SECRET-Hung00';
  answer = 'never';
  const log = spyOnLog('error');
  await expect(secretSetting('ONEBOT_SECRET')).rejects.toMatchObject({ code: 'secret_unavailable' });
  expect(JSON.parse(log.mock.calls[0][0] as string)).toMatchObject({ code: 'secret_unavailable', secret: 'ONEBOT_SECRET', name: 'AbortError' });
  expect(abandoned).toHaveLength(1);
  await abandoned[0];
  log.mockRestore();
}, 30_000);

test('without an ARN the setting is the plain environment variable (the local server)', async () => {
  process.env.ONEBOT_ACCESS_TOKEN = 'plain';
  expect(await secretSetting('ONEBOT_ACCESS_TOKEN')).toBe('plain');
});
