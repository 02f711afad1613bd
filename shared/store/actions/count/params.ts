import type { Model } from '../../../models/define';
import { parseFilter } from '../../filter/parse';
import { ID_ORDER, planAccess } from '../../plan';
import type { ReadOptions } from '../../query';
import type { CountRequest } from '../../types';

/** How count reads: the filter's cheapest plan (each shard then queried with Select COUNT). */
export function countRead(model: Model, request: CountRequest): ReadOptions {
  const filter = parseFilter(model, request.filters);
  return { plan: planAccess(model, filter, ID_ORDER), filter, consistent: request.consistent };
}
