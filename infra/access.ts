import { tokenScopeOf } from '../shared/auth/scopes';
import type { SecretName } from '../shared/config';
import { FUNCTION_DESCRIPTORS, type DynamoAction, type FunctionName } from '../shared/manifest/functions';

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
 * What a function may touch in AWS, as its descriptor (shared/manifest/functions.ts) says: read by
 * the stack and its tests; the artifact tests check that every action a bundle sends is listed.
 */
export function accessOf(fn: FunctionName): FunctionAccess {
  const { table, secrets } = FUNCTION_DESCRIPTORS[fn];
  return { tableActions: table, secrets: readsTokens(fn) ? ['API_TOKENS', ...secrets] : secrets };
}
