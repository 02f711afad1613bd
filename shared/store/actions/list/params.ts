import type { Model } from '../../../models/model';
import { queryFingerprint } from '../../cursor/cursor';
import { parseFilter } from '../../filter/parse';
import { withinReach } from '../../filter/reach';
import { ALL_READY, parseOrder, planAccess } from '../../read/plan';
import type { ReadOptions } from '../../read/query';
import { checkFields } from '../../read/projection';
import { reachIn } from '../../reach';
import type { ListRequest } from '../../types';

/**
 * How a list page reads, once filter, order and `fields` are checked (in that order, so the
 * first problem a caller hears of is the same every time), and the fingerprint its cursors carry.
 */
export function listRead(model: Model, request: ListRequest, readiness = ALL_READY): { options: ReadOptions; fingerprint: string } {
  const filter = withinReach(model, parseFilter(model, request.filters));
  const order = parseOrder(model, request.order_by, readiness);
  checkFields(model, request.fields);
  return {
    options: { plan: planAccess(model, filter, order, readiness), filter, consistent: request.consistent },
    fingerprint: queryFingerprint(request.filters, request.order_by, reachIn(model)),
  };
}
