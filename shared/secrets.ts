import { secretSource, secretsExtension, type SecretName } from './config';
import { callSignal } from './invocation';
import { ApiError } from './errors';
import { CALL_LIMITS } from './limits';
import { causeOf, log } from './log';

/**
 * A setting that is a plain environment variable locally (`NAME`) and a Secrets Manager secret
 * in AWS (`NAME_SECRET_ARN`, whose SecretString is the value). Values are cached per container
 * for five minutes, so a rotated secret is picked up without a redeploy.
 *
 * In AWS the secret is read through the AWS Parameters and Secrets Lambda Extension (a layer,
 * infra/secrets.ts) over HTTP on localhost, not with the SDK's Secrets Manager client: the
 * client was ~24 KiB of every bundle that reads a secret, loaded at every cold start
 * (docs/benchmarks.md, issue 14). The extension's own cache is off, so this cache alone decides
 * when a rotated value is seen, as before.
 */
const TTL_MS = 5 * 60_000;
const cache = new Map<string, { value: string | undefined; expires: number }>();

export async function secretSetting(name: SecretName): Promise<string | undefined> {
  const { arn, value } = secretSource(name);
  if (!arn) return value;
  const hit = cache.get(name);
  if (hit && hit.expires > Date.now()) return hit.value;
  let SecretString: string | undefined;
  try {
    ({ SecretString } = await getSecretValue(arn));
  } catch (error) {
    // A missing grant, a deleted secret or no route to Secrets Manager: the operator's to fix,
    // and never to be mistaken for a database outage.
    log.error('secret_unavailable', { secret: name, ...causeOf(error) });
    throw new ApiError('secret_unavailable', `The ${name} setting cannot be read from Secrets Manager; the cause is in this function's log`, { secret: name });
  }
  cache.set(name, { value: SecretString, expires: Date.now() + TTL_MS });
  return SecretString;
}

/**
 * The extension's error answer, named as the SDK client named it (AccessDeniedException,
 * ResourceNotFoundException, ...) so the log reads as before: an AWS JSON error's __type, or
 * the error name the answer's text starts with.
 */
function extensionError(status: number | undefined, text: string): Error {
  let name: string | undefined;
  try {
    const body = JSON.parse(text) as { __type?: unknown; code?: unknown };
    const type = typeof body.__type === 'string' ? body.__type : typeof body.code === 'string' ? body.code : undefined;
    name = type?.split('#').pop();
  } catch {
    name = /^\s*([A-Z][A-Za-z]*(?:Exception|Error|Fault))\b/.exec(text)?.[1];
  }
  const error = new Error(`the Parameters and Secrets extension answered HTTP ${status}: ${text.slice(0, 300)}`);
  error.name = name ?? 'SecretsExtensionError';
  return error;
}

/**
 * GetSecretValue through the extension: GET /secretsmanager/get?secretId=<arn> with the
 * function's session token in X-Aws-Parameters-Secrets-Token; the answer is GetSecretValue's
 * own JSON. https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
 * node:http rather than fetch: this runs on a cold container's first request, and Node's first
 * fetch loads undici, about 70 ms of CPU where node:http takes about 16 (measured on Node 20).
 * Bounded by CALL_LIMITS.secretTimeoutMs and the invocation's cutoff; an aborted request's
 * socket is destroyed, never reused.
 */
async function getSecretValue(arn: string): Promise<{ SecretString?: string }> {
  const { port, token } = secretsExtension();
  // Imported on first use, as the SDK imports its HTTP handler: on Node 24 loading node:http
  // costs about 25 ms of CPU, which a cold start that reads no secret should not pay.
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: 'localhost',
        port,
        path: `/secretsmanager/get?secretId=${encodeURIComponent(arn)}`,
        headers: { 'X-Aws-Parameters-Secrets-Token': token },
        signal: callSignal(CALL_LIMITS.secretTimeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) {
            reject(extensionError(res.statusCode, text));
            return;
          }
          try {
            resolve(JSON.parse(text) as { SecretString?: string });
          } catch {
            reject(extensionError(res.statusCode, 'the Parameters and Secrets extension answered with no JSON'));
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
