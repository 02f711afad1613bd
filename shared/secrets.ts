import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secretSource, settings, type SecretName } from './config';
import { ApiError } from './http/errors';
import { causeOf, log } from './log';

/**
 * A setting that is a plain environment variable locally (`NAME`) and a Secrets Manager secret
 * in AWS (`NAME_SECRET_ARN`, whose SecretString is the value). Values are cached per container
 * for five minutes, so a rotated secret is picked up without a redeploy.
 */
const TTL_MS = 5 * 60_000;
const cache = new Map<string, { value: string | undefined; expires: number }>();
let client: SecretsManagerClient | undefined;

export async function secretSetting(name: SecretName): Promise<string | undefined> {
  const { arn, value } = secretSource(name);
  if (!arn) return value;
  const hit = cache.get(name);
  if (hit && hit.expires > Date.now()) return hit.value;
  client ??= new SecretsManagerClient({ region: settings().AWS_REGION });
  let SecretString: string | undefined;
  try {
    ({ SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn })));
  } catch (error) {
    // A missing grant, a deleted secret or no route to Secrets Manager: the operator's to fix,
    // and never to be mistaken for a database outage.
    log.error('secret_unavailable', { secret: name, ...causeOf(error) });
    throw new ApiError('secret_unavailable', `The ${name} setting cannot be read from Secrets Manager; the cause is in this function's log`, { secret: name });
  }
  cache.set(name, { value: SecretString, expires: Date.now() + TTL_MS });
  return SecretString;
}
