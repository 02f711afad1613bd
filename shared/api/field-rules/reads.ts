import { parseFilter } from '../../store/filter/parse';
import type { Model } from '../../models/model';
import { modelSeenWithout } from './seen';

/**
 * Refuses a filter that names a field hidden from the caller as the store refuses a field the
 * model lacks (unknown_field, at the same place, offering the same names less the hidden ones),
 * by the store's own parser over the model as the caller sees it; then `more`, the rest of a
 * read's words in the store's order (list: order_by, as invalid_order_by as for any field the
 * model cannot be ordered by; fields). The store then parses the same words again against the
 * whole model.
 */
export function refuseHiddenNames(
  model: Model,
  hidden: ReadonlySet<string>,
  filters: unknown,
  at: PropertyKey[] = ['filters'],
  more?: (seen: Model) => void,
): void {
  const seen = modelSeenWithout(model, hidden);
  parseFilter(seen, filters, at);
  more?.(seen);
}
