import { LIMITS } from '../limits';
import type { Model } from '../models/define';
import { decodeResumeCursor } from './cursor';
import { EmptyFilter, TooManyMatches } from './errors';
import { isMatchAll, type FilterNode } from './filter/ast';
import { parseFilter } from './filter/parse';
import { ID_ORDER, planAccess } from './plan';
import { readAll, type Item } from './query';
import type { BulkGuard } from './types';
import { utf8Order } from './utf8-order';
import { newWriteToken } from './write-token';

export interface Matched {
  filter: FilterNode;
  /** In id order (UTF-8 bytes, as DynamoDB sorts), so the records written are always a prefix. */
  items: Item[];
  /** The bulk operation this call is part of: begun by a call without a cursor, carried on by its cursors. */
  operation: string;
}

/**
 * The records a bulk update or delete would touch, after its guards: no accidental all, no more
 * than allowed; with a cursor, only those after the last record the earlier call reached.
 */
export async function matchForWrite(model: Model, guard: BulkGuard, fingerprint: string): Promise<Matched> {
  let filter = parseFilter(model, guard.filters);
  if (isMatchAll(filter) && guard.allow_all !== true) throw new EmptyFilter();
  let operation = newWriteToken();
  if (guard.cursor !== undefined) {
    const resume = await decodeResumeCursor(guard.cursor, model, fingerprint);
    operation = resume.operation ?? operation;
    filter = { kind: 'and', items: [filter, { kind: 'compare', field: 'id', path: ['id'], op: 'gt', operands: [resume.after] }] };
  }
  const maxAffected = guard.max_affected ?? LIMITS.maxAffected;
  const { items, truncated } = await readAll({ plan: planAccess(model, filter, ID_ORDER), filter, consistent: true }, maxAffected);
  if (truncated) throw new TooManyMatches(maxAffected);
  items.sort((a, b) => utf8Order(a.id as string, b.id as string));
  return { filter, items, operation };
}
