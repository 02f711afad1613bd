import { loadOnce } from '../../load-once';
import type { Model } from '../../models/model';
import { hasRowRules } from '../../models/has-rules';
import type { Changes } from '../operators/changes';

// A chunk of its own, loaded by the first write to a model with an owner or tenant rule.
const rowFields = loadOnce(() => import('./row-fields'));

/** The data a create stores (row-fields.ts stampedData): as sent, for a model without row rules. */
export async function stampedFor(model: Model, data: unknown, at: PropertyKey[]): Promise<unknown> {
  return hasRowRules(model) ? (await rowFields()).stampedData(model, data, at) : data;
}

/** Refuses changes that move a record out of reach (row-fields.ts checkRowChanges); none can, without row rules. */
export async function checkRowChangesFor(model: Model, changes: Changes, at?: PropertyKey[]): Promise<void> {
  if (hasRowRules(model)) (await rowFields()).checkRowChanges(model, changes, at);
}
