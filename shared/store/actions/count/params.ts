import type { Model } from '../../../models/model';
import { parseFilter } from '../../filter/parse';
import { withinReach } from '../../filter/reach';
import { ALL_READY, ID_ORDER, planAccess } from '../../read/plan';
import type { ReadOptions } from '../../read/query';
import type { CountRequest } from '../../types';

/** How count reads: the filter's cheapest plan (each shard then queried with Select COUNT). */
export function countRead(model: Model, request: CountRequest, readiness = ALL_READY): ReadOptions {
  const filter = withinReach(model, parseFilter(model, request.filters));
  return { plan: planAccess(model, filter, ID_ORDER, readiness), filter, consistent: request.consistent };
}
