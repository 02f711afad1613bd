import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where a secret's value comes from: a string, undefined for an empty secret, or an error to answer. */
export type SecretSource = (name: string) => string | undefined | { error: string; status: number };

/** The ARN the harness gives a secret: its setting name is readable from it, as in AWS's own ARNs. */
export const secretArn = (name: string) => `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-Ab12Cd`;
const nameOfArn = (arn: string) => arn.replace(/^.*:secret:/, '').replace(/-\w{6}$/, '');

/** The session token the harness gives every sandbox as Lambda's AWS_SESSION_TOKEN. */
export const SESSION_TOKEN = 'artifact-session-token';

/**
 * A stand-in for Secrets Manager's GetSecretValue, as the bundles reach it in AWS: the AWS
 * Parameters and Secrets Lambda Extension's GET /secretsmanager/get?secretId=<arn> on the port
 * of PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, which refuses a request without the session token
 * (X-Aws-Parameters-Secrets-Token) and answers GetSecretValue's JSON, or the error's status.
 * It also still answers the SDK's own call (AWS JSON 1.1, AWS_ENDPOINT_URL_SECRETS_MANAGER).
 */
export async function startSecretsStandIn(source: SecretSource): Promise<{ server: Server; endpoint: string; port: number; reads: string[] }> {
  const reads: string[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const secretId = url.searchParams.get('secretId') ?? '';
      if (url.pathname !== '/secretsmanager/get' || !secretId) {
        res.writeHead(400).end('stand-in: GET /secretsmanager/get?secretId=<arn>');
        return;
      }
      if (req.headers['x-aws-parameters-secrets-token'] !== SESSION_TOKEN) {
        res.writeHead(401).end("stand-in: X-Aws-Parameters-Secrets-Token is not this function's session token");
        return;
      }
      const name = nameOfArn(secretId);
      const value = source(name);
      reads.push(name);
      if (typeof value === 'object') {
        res.writeHead(value.status).end(`${value.error} (stand-in)`);
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          ARN: secretId,
          Name: name,
          VersionId: 'v1',
          SecretString: value ?? '',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: '1970-01-01T00:00:00Z',
        }),
      );
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { SecretId?: string };
      const name = nameOfArn(SecretId ?? '');
      const value = target === 'secretsmanager.GetSecretValue' ? source(name) : { error: 'UnknownOperationException', status: 400 };
      reads.push(name);
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (typeof value === 'object') {
        res.writeHead(value.status, { 'x-amzn-errortype': value.error });
        res.end(JSON.stringify({ __type: value.error, message: `${value.error} (stand-in)` }));
        return;
      }
      res.end(JSON.stringify({ ARN: SecretId, Name: name, VersionId: 'v1', SecretString: value ?? '', CreatedDate: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, endpoint: `http://127.0.0.1:${port}`, port, reads };
}
