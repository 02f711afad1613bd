import type { Model } from '../../../models/define';
import { dataSpace, indexAttributes, itemKey } from '../../keys';
import type { Item } from '../../read/query';
import { currentRequestId, currentSubject } from '../../../invocation';
import {
  CREATED_ATTRIBUTE,
  DATA_ATTRIBUTE,
  KEY_RUNS_ATTRIBUTE,
  REQUEST_ATTRIBUTE,
  SUBJECT_ATTRIBUTE,
  TTL_ATTRIBUTE,
  UPDATED_ATTRIBUTE,
  VERSION_ATTRIBUTE,
  WRITE_TOKEN_ATTRIBUTE,
} from '../../table';
import { newWriteToken } from '../../write/write-token';

export interface NewRecord {
  id: string;
  data: Record<string, unknown>;
}

const stamp = (attribute: string, value: string | undefined) => (value === undefined ? {} : { [attribute]: value });

/** A new record as the table holds it: keys, index attributes, data and system fields. */
/** `keyRuns`: under an Idempotency-Key, the run the record remembers (shared/store/write/write-token.ts rememberedAfter). */
export function storedItem(model: Model, record: NewRecord, now: string, writeToken = newWriteToken(), keyRuns?: ReadonlyArray<string>): Item {
  const keepFor = model.retention?.(record.data);
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
    // Who wrote it, for the change feed: a new item has no earlier writer's to replace.
    ...stamp(REQUEST_ATTRIBUTE, currentRequestId()),
    ...stamp(SUBJECT_ATTRIBUTE, currentSubject()),
    ...(keyRuns === undefined ? {} : { [KEY_RUNS_ATTRIBUTE]: keyRuns }),
    ...(keepFor === undefined ? {} : { [TTL_ATTRIBUTE]: Math.floor(Date.parse(now) / 1000) + keepFor }),
  };
}
