import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ApiError } from './http/errors';

/**
 * A setting that is a plain environment variable locally (`NAME`) and a Secrets Manager secret
 * in AWS (`NAME_SECRET_ARN`, whose SecretString is the value). Values are cached per container
 * for five minutes, so a rotated secret is picked up without a redeploy.
 */
const TTL_MS = 5 * 60_000;
const cache = new Map<string, { value: string | undefined; expires: number }>();
let client: SecretsManagerClient | undefined;

export async function secretSetting(name: string): Promise<string | undefined> {
  const arn = process.env[`${name}_SECRET_ARN`];
  if (!arn) return process.env[name];
  const hit = cache.get(name);
  if (hit && hit.expires > Date.now()) return hit.value;
  client ??= new SecretsManagerClient({ region: process.env.AWS_REGION });
  let SecretString: string | undefined;
  try {
    ({ SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn })));
  } catch (error) {
    // A missing grant, a deleted secret or no route to Secrets Manager: the operator's to fix,
    // and never to be mistaken for a database outage.
    const e = error as { name?: string; message?: string };
    console.error(JSON.stringify({ level: 'error', code: 'secret_unavailable', secret: name, name: e?.name, message: e?.message }));
    throw new ApiError('secret_unavailable', `The ${name} setting cannot be read from Secrets Manager; the cause is in this function's log`, { secret: name });
  }
  cache.set(name, { value: SecretString, expires: Date.now() + TTL_MS });
  return SecretString;
}
