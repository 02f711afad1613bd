import { parseFilter } from '../../store/filter/parse';
import { parseOrder } from '../../store/read/plan';
import { checkFields } from '../../store/read/projection';
import type { Model } from '../../models/define';
import { modelSeenWithout } from './seen';

/** What a read or a bulk write names of a model's fields. */
export interface NamedFields {
  filters?: unknown;
  order_by?: string | ReadonlyArray<string>;
  fields?: ReadonlyArray<string>;
}

/**
 * Refuses filters, order_by and fields that name a field hidden from the caller, as the store
 * refuses a field the model lacks (unknown_field; invalid_order_by for order_by, as for any
 * field the model cannot be ordered by), in the store's order: filter, order, fields. A caller
 * who sees every field pays nothing; the store then parses the same words again against the whole model.
 */
export function refuseHiddenNames(model: Model, hidden: ReadonlySet<string>, named: NamedFields, at: PropertyKey[] = ['filters']): void {
  if (hidden.size === 0) return;
  const seen = modelSeenWithout(model, hidden);
  parseFilter(seen, named.filters, at);
  if (named.order_by !== undefined) parseOrder(seen, named.order_by);
  checkFields(seen, named.fields);
}
