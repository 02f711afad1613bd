import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where a secret's value comes from: a string, undefined for an empty secret, or an error to answer. */
export type SecretSource = (name: string) => string | undefined | { error: string; status: number };

/** The ARN the harness gives a secret: its setting name is readable from it, as in AWS's own ARNs. */
export const secretArn = (name: string) => `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-Ab12Cd`;
const nameOfArn = (arn: string) => arn.replace(/^.*:secret:/, '').replace(/-\w{6}$/, '');

/**
 * A stand-in for Secrets Manager's GetSecretValue (AWS JSON 1.1 protocol), reached by the bundles
 * through the SDK's own endpoint setting (AWS_ENDPOINT_URL_SECRETS_MANAGER).
 */
export async function startSecretsStandIn(source: SecretSource): Promise<{ server: Server; endpoint: string; reads: string[] }> {
  const reads: string[] = [];
  const server = createServer((req, res) => {
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
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reads };
}
