import type { Model } from '../../../models/model';
import { parseFilter } from '../../filter/parse';
import { withinReach } from '../../filter/reach';
import { ALL_READY, ID_ORDER, planAccess } from '../../read/plan';
import type { ReadOptions } from '../../read/query';
import { checkFields } from '../../read/projection';
import type { GetOneRequest } from '../../types';

/** How get_one reads: the filter's cheapest plan in id order, once filter and `fields` are checked. */
export function getOneRead(model: Model, request: GetOneRequest, readiness = ALL_READY): ReadOptions {
  const filter = withinReach(model, parseFilter(model, request.filters));
  checkFields(model, request.fields);
  return { plan: planAccess(model, filter, ID_ORDER, readiness), filter, consistent: request.consistent };
}
