import type { Model } from '../../../models/model';
import { dataSpace, indexAttributes, itemKey } from '../../keys';
import type { Item } from '../../read/query';
import { expiryAttributes } from '../../expiry/ttl';
import { CREATED_ATTRIBUTE, DATA_ATTRIBUTE, KEY_RUNS_ATTRIBUTE, UPDATED_ATTRIBUTE, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../../table';
import { newWriteToken, writerStamp } from '../../write/write-token';

export interface NewRecord {
  id: string;
  data: Record<string, unknown>;
}

/** A new record as the table holds it: keys, index attributes, data, system fields and its expiry (its ttl field's). */
/** `keyRuns`: under an Idempotency-Key, the run the record remembers (shared/store/write/write-token.ts rememberedAfter). */
export function storedItem(model: Model, record: NewRecord, now: string, writeToken = newWriteToken(), keyRuns?: ReadonlyArray<string>): Item {
  return {
    // In the tenant its data names (stamped from its creator's reach): the service's own creates have no reach to take it from.
    ...itemKey(model, record.id, dataSpace(model, record.data)),
    ...indexAttributes(model, record.id, record.data),
    id: record.id,
    [DATA_ATTRIBUTE]: record.data,
    [CREATED_ATTRIBUTE]: now,
    [UPDATED_ATTRIBUTE]: now,
    [VERSION_ATTRIBUTE]: 1,
    [WRITE_TOKEN_ATTRIBUTE]: writeToken,
    ...writerStamp(),
    ...(keyRuns === undefined ? {} : { [KEY_RUNS_ATTRIBUTE]: keyRuns }),
    ...expiryAttributes(model, record.data),
  };
}
