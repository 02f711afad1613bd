import type { Model } from '../models/model';

type Find = (name: string) => Promise<Model | undefined>;

let find: Find = async () => undefined;

/**
 * How the chain's rule checks (a body's scopes, an Idempotency-Key's view) find a model by name:
 * given by the operations that serve models (shared/api/record-operation.ts, as its module loads),
 * so that the chain of a function serving none (the public documents, health) bundles no catalog,
 * and with it neither the models' code nor zod's JSON Schema (31 KiB of the openapi function's
 * cold start). Where none is given, no model is found: delete asks admin, and no view is kept.
 */
export function lookUpModelsWith(finder: Find): void {
  find = finder;
}

export const lookUpModel = (name: string): Promise<Model | undefined> => find(name);
