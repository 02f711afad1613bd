/** A claim's name, as a tenant or field rule and an API_TOKENS entry spell it: 1 to 128 visible ASCII characters. */
export const CLAIM_NAME = /^[\x21-\x7e]{1,128}$/;

/**
 * An empty set of claims, optionally filled from `from`: an object without a prototype, so that a
 * rule reading a claim the caller lacks finds nothing, even one named like an Object property
 * (`constructor`, `toString`), and a claim named `__proto__` is a claim like any other.
 */
export const claimRecord = (...from: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> =>
  Object.assign(Object.create(null) as Record<string, string>, ...from);
