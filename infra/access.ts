import { tokenScopeOf } from '../shared/auth/scopes';
import type { SecretName } from '../shared/config';
import { expiresAggregates } from '../shared/aggregates/expire';
import { FUNCTION_DESCRIPTORS, FUNCTIONS, type DynamoAction, type FunctionName } from '../shared/manifest/functions';
import type { Model } from '../shared/models/model';
import { allModels } from '../shared/models/every-model';

/** A function checks bearer tokens when its scope needs one: it reads API_TOKENS, and JWT_SCOPE_PREFIX behind a JWT authorizer. */
export function checksTokens(fn: FunctionName): boolean {
  const descriptor = FUNCTION_DESCRIPTORS[fn];
  return descriptor.trigger === 'http' && tokenScopeOf(descriptor.scope) !== undefined;
}

/** A public route whose answer a token widens (health) reads API_TOKENS too; API Gateway puts no JWT authorizer before it. */
const readsTokens = (fn: FunctionName): boolean => {
  const descriptor = FUNCTION_DESCRIPTORS[fn];
  return checksTokens(fn) || (descriptor.trigger === 'http' && descriptor.optionalToken === true);
};

export interface FunctionAccess {
  tableActions: ReadonlyArray<DynamoAction>;
  secrets: ReadonlyArray<SecretName>;
}

/**
 * What the change feed's consumer sends to keep aggregates (shared/aggregates/apply.ts): a
 * consistent GetItem of a record's contribution, then a conditional PutItem of it, alone or in a
 * TransactWriteItems with the counters' UpdateItems (a transaction is authorised per action it holds).
 */
export const KEEPS_AGGREGATES: ReadonlyArray<DynamoAction> = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

/**
 * What a function may touch in AWS, as its descriptor (shared/manifest/functions.ts) says: read by
 * the stack and its tests; the artifact tests check that every action a bundle sends is listed.
 * The feed's consumer also writes the aggregates' items, in a stack whose models declare any.
 */
export function accessOf(fn: FunctionName, models: ReadonlyArray<Model> = allModels()): FunctionAccess {
  const { table, secrets } = FUNCTION_DESCRIPTORS[fn];
  const keepsAggregates = fn === 'feed' && models.some((m) => Object.keys(m.aggregates).length > 0);
  // A record with a ttl moves its expiry marker in the same transaction (shared/aggregates/markers.ts), from the feed and the backfill alike.
  const movesMarkers = (fn === 'feed' || fn === 'index_build') && models.some(expiresAggregates);
  const tableActions = [...table, ...(keepsAggregates ? KEEPS_AGGREGATES : []), ...(movesMarkers ? (['dynamodb:DeleteItem'] as const) : [])];
  return { tableActions, secrets: readsTokens(fn) ? ['API_TOKENS', ...secrets] : secrets };
}

/** The functions a stack serving `models` deploys: every one, but aggregate_expiry only where a model has a ttl and aggregates. */
export const deployedFunctions = (models: ReadonlyArray<Model> = allModels()): FunctionName[] =>
  FUNCTIONS.filter((fn) => !FUNCTION_DESCRIPTORS[fn].onlyForExpiringAggregates || models.some(expiresAggregates));
